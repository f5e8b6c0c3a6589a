// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IClearingSpoke, Intent, Protocol, Strategy} from "./ClearingTypes.sol";
import {Permit2Params, Permit2Pull} from "./Permit2.sol";
import {SignatureLib} from "./SignatureLib.sol";
import {TokenLib} from "./TokenLib.sol";

/// @notice Entry point for intents: charges the dynamic fee signed by the fee signer, then creates the intent on the
/// spoke with the adapter as initiator. The signed payload is
/// `keccak256(abi.encode(uint256 tokenFee, uint256 nativeFee, address inputAsset, uint256 deadline))`, EIP-191.
contract FeeAdapter {
    /// @param fee token fee in input-asset native units
    /// @param deadline last timestamp at which the signature is valid
    /// @param sig the fee signer's 65-byte EIP-191 signature
    struct FeeParams {
        uint256 fee;
        uint256 deadline;
        bytes sig;
    }

    struct OrderParameters {
        uint32[] destinations;
        address receiver;
        address inputAsset;
        address outputAsset;
        uint256 amount;
        uint24 maxFee;
        uint48 ttl;
        bytes data;
    }

    IClearingSpoke public immutable spoke;
    address public immutable xerc20Module;
    address public owner;
    address public feeRecipient;
    address public feeSigner;

    event IntentWithFeesAdded(bytes32 indexed intentId, bytes32 initiator, uint256 tokenFee, uint256 nativeFee);
    event OrderCreated(bytes32 indexed orderId, bytes32 initiator, bytes32[] intentIds, uint256 tokenFee, uint256 nativeFee);
    event FeeRecipientUpdated(address previous, address current);
    event FeeSignerUpdated(address previous, address current);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error FeeAdapter_NotOwner(address caller);
    error FeeAdapter_InvalidSignature();
    error FeeAdapter_InvalidDeadline();
    error FeeAdapter_EmptyOrder();
    error FeeAdapter_MultipleOrderAssets();
    error FeeAdapter_TransferFailed(address asset, address from, address to, uint256 amount);
    error FeeAdapter_NativeTransferFailed(address to, uint256 amount);
    error FeeAdapter_ApproveFailed(address asset, address spender);

    constructor(address spoke_, address feeRecipient_, address feeSigner_, address xerc20Module_, address owner_) {
        spoke = IClearingSpoke(spoke_);
        feeRecipient = feeRecipient_;
        feeSigner = feeSigner_;
        xerc20Module = xerc20Module_;
        owner = owner_;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert FeeAdapter_NotOwner(msg.sender);
        _;
    }

    /// @notice Pulls `amount + feeParams.fee` from the caller, charges the fee (tokens and `msg.value`) and creates an
    /// intent of `amount` on the spoke.
    function newIntent(
        uint32[] calldata destinations,
        address receiver,
        address inputAsset,
        address outputAsset,
        uint256 amount,
        uint24 maxFee,
        uint48 ttl,
        bytes calldata data,
        FeeParams calldata feeParams
    ) external payable returns (bytes32 intentId, Intent memory intent) {
        _pull(inputAsset, amount + feeParams.fee);
        _handleFees(inputAsset, amount, feeParams.fee, feeParams.deadline, feeParams.sig);
        (intentId, intent) = spoke.newIntent(destinations, receiver, inputAsset, outputAsset, amount, maxFee, ttl, data);
        emit IntentWithFeesAdded(intentId, Protocol.toBytes32(msg.sender), feeParams.fee, msg.value);
    }

    /// @notice `newIntent` with `amount + feeParams.fee` pulled through Permit2 (reference §5.1): the caller signs
    /// `PermitTransferFrom{permitted: {inputAsset, amount + fee}, spender: this adapter, nonce, deadline}` and has
    /// approved Permit2 on the token. Then the same fee flow and intent as `newIntent`.
    function newIntent(
        uint32[] calldata destinations,
        address receiver,
        address inputAsset,
        address outputAsset,
        uint256 amount,
        uint24 maxFee,
        uint48 ttl,
        bytes calldata data,
        Permit2Params calldata permit2Params,
        FeeParams calldata feeParams
    ) external payable returns (bytes32 intentId, Intent memory intent) {
        Permit2Pull.pull(inputAsset, amount + feeParams.fee, permit2Params);
        _handleFees(inputAsset, amount, feeParams.fee, feeParams.deadline, feeParams.sig);
        (intentId, intent) = spoke.newIntent(destinations, receiver, inputAsset, outputAsset, amount, maxFee, ttl, data);
        emit IntentWithFeesAdded(intentId, Protocol.toBytes32(msg.sender), feeParams.fee, msg.value);
    }

    /// @notice Creates several intents of one input asset for one fee; `orderId = keccak256(abi.encode(intentIds))`.
    function newOrder(uint256 fee, uint256 deadline, bytes calldata sig, OrderParameters[] calldata params)
        external
        payable
        returns (bytes32 orderId, bytes32[] memory intentIds)
    {
        uint256 count = params.length;
        if (count == 0) revert FeeAdapter_EmptyOrder();
        address inputAsset = params[0].inputAsset;
        uint256 total;
        for (uint256 i; i < count; ++i) {
            if (params[i].inputAsset != inputAsset) revert FeeAdapter_MultipleOrderAssets();
            total += params[i].amount;
        }
        _pull(inputAsset, total + fee);
        _handleFees(inputAsset, total, fee, deadline, sig);
        intentIds = new bytes32[](count);
        for (uint256 i; i < count; ++i) {
            intentIds[i] = _newOrderIntent(params[i]);
        }
        orderId = keccak256(abi.encode(intentIds));
        emit OrderCreated(orderId, Protocol.toBytes32(msg.sender), intentIds, fee, msg.value);
    }

    /// @notice Refunds an unsupported intent by hand: the hub returned it to the adapter's spoke virtual balance.
    function returnUnsupportedIntent(address asset, uint256 amount, address recipient) external onlyOwner {
        spoke.withdraw(asset, amount);
        _push(asset, recipient, amount);
    }

    function updateFeeRecipient(address feeRecipient_) external onlyOwner {
        emit FeeRecipientUpdated(feeRecipient, feeRecipient_);
        feeRecipient = feeRecipient_;
    }

    function updateFeeSigner(address feeSigner_) external onlyOwner {
        emit FeeSignerUpdated(feeSigner, feeSigner_);
        feeSigner = feeSigner_;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @dev reference §5.1 step 1: pulls `total` (amount + fee) from the caller.
    function _pull(address inputAsset, uint256 total) private {
        (bool pulled, bytes memory revertData) = TokenLib.tryTransferFrom(inputAsset, msg.sender, address(this), total);
        if (!pulled) {
            TokenLib.bubble(revertData);
            revert FeeAdapter_TransferFailed(inputAsset, msg.sender, address(this), total);
        }
    }

    /// @dev reference §5.1 steps 2 to 6, in order (step 1, the pull, is the caller's).
    function _handleFees(address inputAsset, uint256 amount, uint256 fee, uint256 deadline, bytes calldata sig) private {
        address signer = SignatureLib.recoverPersonal(keccak256(abi.encode(fee, msg.value, inputAsset, deadline)), sig);
        if (signer != feeSigner) revert FeeAdapter_InvalidSignature();
        if (block.timestamp > deadline) revert FeeAdapter_InvalidDeadline();
        if (fee > 0) _push(inputAsset, feeRecipient, fee);
        if (msg.value > 0) {
            (bool sent,) = feeRecipient.call{value: msg.value}("");
            if (!sent) revert FeeAdapter_NativeTransferFailed(feeRecipient, msg.value);
        }
        address spender = spoke.strategies(inputAsset) == Strategy.XERC20 ? xerc20Module : address(spoke);
        if (_allowance(inputAsset, spender) < amount) {
            (bool approved,) = TokenLib.tryApprove(inputAsset, spender, type(uint256).max);
            if (!approved) revert FeeAdapter_ApproveFailed(inputAsset, spender);
        }
    }

    function _newOrderIntent(OrderParameters calldata order) private returns (bytes32 intentId) {
        (intentId,) = spoke.newIntent(
            order.destinations,
            order.receiver,
            order.inputAsset,
            order.outputAsset,
            order.amount,
            order.maxFee,
            order.ttl,
            order.data
        );
    }

    function _allowance(address asset, address spender) private view returns (uint256) {
        (bool ok, bytes memory returnData) =
            asset.staticcall(abi.encodeWithSelector(0xdd62ed3e, address(this), spender));
        if (!ok || returnData.length < 32) return 0;
        return abi.decode(returnData, (uint256));
    }

    function _push(address asset, address to, uint256 amount) private {
        (bool ok, bytes memory revertData) = TokenLib.tryTransfer(asset, to, amount);
        if (!ok) {
            TokenLib.bubble(revertData);
            revert FeeAdapter_TransferFailed(asset, address(this), to, amount);
        }
    }
}
