// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice EIP-191 `personal_sign` recovery for 32-byte payloads.
library SignatureLib {
    /// @dev secp256k1n / 2: signatures with a larger `s` are malleable copies and are rejected.
    uint256 internal constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    /// @notice `keccak256("\x19Ethereum Signed Message:\n32" ++ hash)`.
    function toEthSignedMessageHash(bytes32 hash) internal pure returns (bytes32 digest) {
        assembly ("memory-safe") {
            mstore(0x00, "\x19Ethereum Signed Message:\n32")
            mstore(0x1c, hash)
            digest := keccak256(0x00, 0x3c)
        }
    }

    /// @notice Recovers the signer of a 65-byte `r ++ s ++ v` signature; returns address(0) for any malformed input.
    function recover(bytes32 digest, bytes memory signature) internal pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return address(0);
        if (uint256(s) > HALF_ORDER) return address(0);
        return ecrecover(digest, v, r, s);
    }

    /// @notice The signer of an EIP-191 signature over `hash`.
    function recoverPersonal(bytes32 hash, bytes memory signature) internal pure returns (address) {
        return recover(toEthSignedMessageHash(hash), signature);
    }
}
