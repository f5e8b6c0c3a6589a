// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice EIP-191 `personal_sign` recovery for 32-byte payloads, with the semantics of OpenZeppelin 5's
/// `ECDSA.recover` (which the production fee adapter uses): a signature must be 65 bytes `r ++ s ++ v`, `s` must be
/// in the lower half of the curve order, `v` is passed to `ecrecover` as it is (27 or 28; 0 and 1 are not
/// normalized, so `ecrecover` returns zero for them), and a zero result is refused. Each refusal reverts with
/// OpenZeppelin's error.
library SignatureLib {
    /// @dev secp256k1n / 2: signatures with a larger `s` are malleable copies and are rejected.
    uint256 internal constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    error ECDSAInvalidSignature();
    error ECDSAInvalidSignatureLength(uint256 length);
    error ECDSAInvalidSignatureS(bytes32 s);

    /// @notice `keccak256("\x19Ethereum Signed Message:\n32" ++ hash)`.
    function toEthSignedMessageHash(bytes32 hash) internal pure returns (bytes32 digest) {
        assembly ("memory-safe") {
            mstore(0x00, "\x19Ethereum Signed Message:\n32")
            mstore(0x1c, hash)
            digest := keccak256(0x00, 0x3c)
        }
    }

    /// @notice The signer of a 65-byte `r ++ s ++ v` signature (`ECDSA.recover`): never address(0).
    function recover(bytes32 digest, bytes memory signature) internal pure returns (address signer) {
        if (signature.length != 65) revert ECDSAInvalidSignatureLength(signature.length);
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        if (uint256(s) > HALF_ORDER) revert ECDSAInvalidSignatureS(s);
        signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert ECDSAInvalidSignature();
    }

    /// @notice The signer of an EIP-191 signature over `hash`.
    function recoverPersonal(bytes32 hash, bytes memory signature) internal pure returns (address) {
        return recover(toEthSignedMessageHash(hash), signature);
    }
}
