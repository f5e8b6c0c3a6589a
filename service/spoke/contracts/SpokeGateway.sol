// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IClearingSpokeReceiver, ISpokeGateway} from "./ClearingTypes.sol";

/// @notice The spoke's end of the simulated transport. Outbound: the spoke pays a deterministic fee and the gateway
/// emits `MessageSent` for the transport to carry. Inbound: the transport relayer delivers hub messages, each message
/// id at most once.
contract SpokeGateway is ISpokeGateway {
    address public owner;
    address public spoke;
    /// @notice The only address allowed to deliver inbound messages.
    address public relayer;
    /// @notice The only origin accepted for inbound messages.
    uint32 public hubDomain;
    uint256 public baseFee;
    uint256 public feePerByte;
    /// @notice Outbound message counter; the first message has nonce 1.
    uint256 public nonce;
    mapping(bytes32 messageId => bool) public delivered;

    event MessageSent(bytes32 indexed messageId, uint32 indexed destination, uint256 nonce, bytes message, uint256 fee);
    event MessageReceived(bytes32 indexed messageId, uint32 origin);
    event FeesUpdated(uint256 baseFee, uint256 feePerByte);
    event SpokeUpdated(address previous, address current);
    event RelayerUpdated(address previous, address current);
    event HubDomainUpdated(uint32 previous, uint32 current);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event FeesWithdrawn(address indexed to, uint256 amount);

    error SpokeGateway_NotOwner(address caller);
    error SpokeGateway_SendMessage_NotSpoke(address caller);
    error SpokeGateway_SendMessage_InsufficientFee(uint256 provided, uint256 required);
    error SpokeGateway_SendMessage_RefundFailed(address to, uint256 amount);
    error SpokeGateway_UpdateMailbox_NotSpoke(address caller);
    error SpokeGateway_ReceiveMessage_NotRelayer(address caller);
    error SpokeGateway_ReceiveMessage_InvalidOrigin(uint32 origin, uint32 expected);
    error SpokeGateway_ReceiveMessage_AlreadyDelivered(bytes32 messageId);
    error SpokeGateway_Withdraw_TransferFailed(address to, uint256 amount);

    constructor(
        address owner_,
        address spoke_,
        address relayer_,
        uint32 hubDomain_,
        uint256 baseFee_,
        uint256 feePerByte_
    ) {
        owner = owner_;
        spoke = spoke_;
        relayer = relayer_;
        hubDomain = hubDomain_;
        baseFee = baseFee_;
        feePerByte = feePerByte_;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert SpokeGateway_NotOwner(msg.sender);
        _;
    }

    /// @notice `baseFee + feePerByte * message.length`, the same for every destination.
    function quoteMessage(uint32, bytes calldata message) public view returns (uint256) {
        return baseFee + feePerByte * message.length;
    }

    /// @notice Emits the message for the transport. The quote stays here as the transport fee; the unused rest of
    /// `msg.value` is refunded to `tx.origin` (reference §1.6), and a refund that fails reverts the whole call.
    function sendMessage(uint32 destination, bytes calldata message) external payable returns (bytes32 messageId) {
        if (msg.sender != spoke) revert SpokeGateway_SendMessage_NotSpoke(msg.sender);
        uint256 required = quoteMessage(destination, message);
        if (msg.value < required) revert SpokeGateway_SendMessage_InsufficientFee(msg.value, required);
        uint256 messageNonce = ++nonce;
        messageId = keccak256(abi.encode(uint32(block.chainid), destination, messageNonce, message));
        emit MessageSent(messageId, destination, messageNonce, message, required);
        uint256 unused = msg.value - required;
        if (unused > 0) {
            (bool ok,) = tx.origin.call{value: unused}("");
            if (!ok) revert SpokeGateway_SendMessage_RefundFailed(tx.origin, unused);
        }
    }

    /// @notice Delivers a hub message to the spoke. A reverting spoke reverts the delivery, so it can be retried.
    function receiveMessage(uint32 origin, bytes32 messageId, bytes calldata message) external {
        if (msg.sender != relayer) revert SpokeGateway_ReceiveMessage_NotRelayer(msg.sender);
        if (origin != hubDomain) revert SpokeGateway_ReceiveMessage_InvalidOrigin(origin, hubDomain);
        if (delivered[messageId]) revert SpokeGateway_ReceiveMessage_AlreadyDelivered(messageId);
        delivered[messageId] = true;
        IClearingSpokeReceiver(spoke).receiveMessage(message);
        emit MessageReceived(messageId, origin);
    }

    function setFees(uint256 baseFee_, uint256 feePerByte_) external onlyOwner {
        baseFee = baseFee_;
        feePerByte = feePerByte_;
        emit FeesUpdated(baseFee_, feePerByte_);
    }

    function updateSpoke(address spoke_) external onlyOwner {
        emit SpokeUpdated(spoke, spoke_);
        spoke = spoke_;
    }

    function updateRelayer(address relayer_) external onlyOwner {
        emit RelayerUpdated(relayer, relayer_);
        relayer = relayer_;
    }

    /// @notice The spoke's MAILBOX VAR_UPDATE: the relayer plays the Hyperlane mailbox (the only address that may
    /// deliver inbound messages), so a new mailbox is a new relayer.
    function updateMailbox(address mailbox) external {
        if (msg.sender != spoke) revert SpokeGateway_UpdateMailbox_NotSpoke(msg.sender);
        emit RelayerUpdated(relayer, mailbox);
        relayer = mailbox;
    }

    function updateHubDomain(uint32 hubDomain_) external onlyOwner {
        emit HubDomainUpdated(hubDomain, hubDomain_);
        hubDomain = hubDomain_;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @notice Sends the collected transport fees to `to`.
    function withdrawFees(address payable to) external onlyOwner {
        uint256 amount = address(this).balance;
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert SpokeGateway_Withdraw_TransferFailed(to, amount);
        emit FeesWithdrawn(to, amount);
    }
}
