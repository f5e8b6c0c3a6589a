// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {TokenLib} from "./TokenLib.sol";

/// @dev The canonical Permit2 address (reference §2.1), where `deploySpoke` installs `Permit2`'s runtime code.
address constant PERMIT2_ADDRESS = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

/// @notice The SignatureTransfer part of Permit2, as the spoke and the fee adapter call it.
interface IPermit2 {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external;
}

/// @notice What a user passes to the Permit2 overloads of `newIntent` (spoke and fee adapter): the permit's nonce and
/// deadline, and the owner's EIP-712 signature of `PermitTransferFrom` with `spender` = the contract called.
struct Permit2Params {
    uint256 nonce;
    uint256 deadline;
    bytes signature;
}

/// @notice The pull both Permit2 overloads make (spoke, reference §4.1 step 7; fee adapter, §5.1 step 1): `amount` of
/// `token` from the caller (`msg.sender`) to the calling contract, on the caller's signed permit.
library Permit2Pull {
    function pull(address token, uint256 amount, Permit2Params calldata permit2Params) internal {
        IPermit2(PERMIT2_ADDRESS).permitTransferFrom(
            IPermit2.PermitTransferFrom({
                permitted: IPermit2.TokenPermissions({token: token, amount: amount}),
                nonce: permit2Params.nonce,
                deadline: permit2Params.deadline
            }),
            IPermit2.SignatureTransferDetails({to: address(this), requestedAmount: amount}),
            msg.sender,
            permit2Params.signature
        );
    }
}

/// @notice Permit2's signature transfers (Uniswap's `SignatureTransfer`), written for clearsim from the public
/// semantics: an owner approves this contract once on a token, then signs EIP-712 `PermitTransferFrom` messages, each
/// letting one spender (`msg.sender` of `permitTransferFrom`) move up to `permitted.amount` once, before `deadline`,
/// with an unordered nonce (one bit of `nonceBitmap[owner][nonce >> 8]`).
///
/// Differences from Uniswap's contract, all deliberate: no AllowanceTransfer, no batch or witness variants, and no
/// ERC-1271 (every owner is treated as a key: a contract owner's signature is checked with `ecrecover` too); the
/// domain separator is computed per call, not cached in immutables, so that the runtime code can be installed at the
/// canonical address with `anvil_setCode`; a token that reverts has its revert data bubbled up (solmate's
/// `safeTransferFrom` replaces it with "TRANSFER_FROM_FAILED"), and a `false` return or a token without code gives
/// `Permit2_TransferFromFailed`.
contract Permit2 is IPermit2 {
    bytes32 public constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    bytes32 public constant PERMIT_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );
    bytes32 private constant TYPE_HASH = keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Permit2");
    /// @dev Clears the top bit of an EIP-2098 `vs` word.
    bytes32 private constant UPPER_BIT_MASK = 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff;

    /// @notice Used nonces: bit `nonce & 0xff` of word `nonce >> 8`.
    mapping(address owner => mapping(uint256 wordPos => uint256 bits)) public nonceBitmap;

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    error SignatureExpired(uint256 signatureDeadline);
    error InvalidAmount(uint256 maxAmount);
    error InvalidNonce();
    error InvalidSignatureLength();
    error InvalidSignature();
    error InvalidSigner();
    error Permit2_TransferFromFailed(address token, address from, address to, uint256 amount);

    /// @notice `keccak256(abi.encode(EIP712Domain typehash, keccak256("Permit2"), chainid, this))`.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(TYPE_HASH, NAME_HASH, block.chainid, address(this)));
    }

    /// @notice Moves `transferDetails.requestedAmount` of `permit.permitted.token` from `owner` to
    /// `transferDetails.to`, on `owner`'s signature of `permit` with the caller as spender. Checks, in order: the
    /// deadline, the amount, the nonce (consumed), the signature; then the token transfer.
    function permitTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        uint256 requestedAmount = transferDetails.requestedAmount;
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        if (requestedAmount > permit.permitted.amount) revert InvalidAmount(permit.permitted.amount);
        _useUnorderedNonce(owner, permit.nonce);
        _verify(signature, _hashTypedData(_hashPermit(permit)), owner);
        address token = permit.permitted.token;
        (bool ok, bytes memory revertData) = TokenLib.tryTransferFrom(token, owner, transferDetails.to, requestedAmount);
        if (!ok) {
            TokenLib.bubble(revertData);
            revert Permit2_TransferFromFailed(token, owner, transferDetails.to, requestedAmount);
        }
    }

    /// @notice Marks the nonces of `mask` in word `wordPos` of the caller's bitmap as used.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    function _hashPermit(PermitTransferFrom calldata permit) private view returns (bytes32) {
        bytes32 tokenPermissionsHash = keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, permit.permitted));
        return keccak256(
            abi.encode(PERMIT_TRANSFER_FROM_TYPEHASH, tokenPermissionsHash, msg.sender, permit.nonce, permit.deadline)
        );
    }

    function _hashTypedData(bytes32 dataHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), dataHash));
    }

    function _useUnorderedNonce(address owner, uint256 nonce) private {
        uint256 wordPos = nonce >> 8;
        uint256 bit = 1 << (nonce & 0xff);
        uint256 flipped = nonceBitmap[owner][wordPos] ^= bit;
        if (flipped & bit == 0) revert InvalidNonce();
    }

    /// @dev 65-byte `r ++ s ++ v` or 64-byte EIP-2098 `r ++ vs`; `v` goes to `ecrecover` as it is and `s` is not
    /// range-checked (Permit2's `SignatureVerification`).
    function _verify(bytes calldata signature, bytes32 digest, address claimedSigner) private pure {
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            (r, s) = abi.decode(signature, (bytes32, bytes32));
            v = uint8(signature[64]);
        } else if (signature.length == 64) {
            bytes32 vs;
            (r, vs) = abi.decode(signature, (bytes32, bytes32));
            s = vs & UPPER_BIT_MASK;
            v = uint8(uint256(vs >> 255)) + 27;
        } else {
            revert InvalidSignatureLength();
        }
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert InvalidSignature();
        if (signer != claimedSigner) revert InvalidSigner();
    }
}
