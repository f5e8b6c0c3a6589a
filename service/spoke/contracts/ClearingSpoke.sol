// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {
    FillMessage,
    IClearingSpoke,
    IClearingSpokeReceiver,
    Intent,
    IntentStatus,
    ISpokeGateway,
    IXERC20Module,
    Protocol,
    Settlement,
    Strategy
} from "./ClearingTypes.sol";
import {Permit2Params, Permit2Pull} from "./Permit2.sol";
import {TokenLib} from "./TokenLib.sol";

/// @notice A spoke of the clearing protocol (V1 semantics): creates intents and queues them for the hub, lets solvers
/// fill intents from their virtual balances and queues the fills, and pays settlements delivered by the gateway.
/// Amounts in intents and settlements are 18-decimal normalized; balances are in token-native units.
contract ClearingSpoke is IClearingSpoke, IClearingSpokeReceiver {
    /// @notice VAR_UPDATE variable hashes: `keccak256(abi.encode("NAME"))`, abi-encoded strings, not raw bytes.
    bytes32 public constant GATEWAY_HASH = keccak256(abi.encode("GATEWAY"));
    bytes32 public constant MAILBOX_HASH = keccak256(abi.encode("MAILBOX"));
    bytes32 public constant LIGHTHOUSE_HASH = keccak256(abi.encode("LIGHTHOUSE"));
    bytes32 public constant WATCHTOWER_HASH = keccak256(abi.encode("WATCHTOWER"));

    /// @notice This spoke's domain: the chain id.
    uint32 public immutable DOMAIN;

    address public owner;
    address public gateway;
    address public lighthouse;
    address public watchtower;
    uint32 public hubDomain;
    bool public paused;
    /// @notice Intent counter, pre-incremented: the first intent has nonce 1.
    uint64 public nonce;

    mapping(bytes32 intentId => IntentStatus) public status;
    /// @notice Virtual balances (solver deposits and settlements credited instead of transferred), native units.
    mapping(address asset => mapping(address account => uint256)) public balances;
    mapping(address asset => Strategy) public strategies;
    mapping(Strategy strategy => address) public modules;

    /// @notice Intent queue: ids at indexes `intentQueueFirst..intentQueueLast` (inclusive; the first index is 1).
    uint256 public intentQueueFirst = 1;
    uint256 public intentQueueLast;
    mapping(uint256 index => bytes32 intentId) public intentQueue;
    /// @notice Fill queue: messages at indexes `fillQueueFirst..fillQueueLast`.
    uint256 public fillQueueFirst = 1;
    uint256 public fillQueueLast;
    mapping(uint256 index => FillMessage) public fillQueue;

    event IntentAdded(bytes32 indexed intentId, uint256 queueIdx, Intent intent);
    event IntentFilled(
        bytes32 indexed intentId, address indexed solver, uint256 totalFeeDBPS, uint256 queueIdx, Intent intent
    );
    event IntentQueueProcessed(bytes32 indexed messageId, uint256 firstIdx, uint256 lastIdx, uint256 quote);
    event FillQueueProcessed(bytes32 indexed messageId, uint256 firstIdx, uint256 lastIdx, uint256 quote);
    event Deposited(address indexed depositant, address indexed asset, uint256 amount);
    event Withdrawn(address indexed withdrawer, address indexed asset, uint256 amount);
    event Settled(bytes32 indexed intentId, address account, address asset, uint256 amount);
    event AssetTransferFailed(address indexed asset, address indexed recipient, uint256 amount);
    event AssetMintFailed(address indexed asset, address indexed recipient, uint256 amount, Strategy strategy);
    event ExternalCalldataExecuted(bytes32 indexed intentId, bytes returnData);
    event GatewayUpdated(address previous, address current);
    event LighthouseUpdated(address previous, address current);
    event WatchtowerUpdated(address previous, address current);
    event HubDomainUpdated(uint32 previous, uint32 current);
    event StrategySetForAsset(address indexed asset, Strategy strategy);
    event ModuleSetForStrategy(Strategy strategy, address module);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event Paused();
    event Unpaused();

    error ClearingSpoke_NotOwner(address caller);
    error ClearingSpoke_Paused();
    error ClearingSpoke_Pause_NotAuthorized(address caller);
    error ClearingSpoke_NewIntent_InvalidIntent();
    error ClearingSpoke_NewIntent_MaxFeeExceeded(uint24 maxFee, uint24 limit);
    error ClearingSpoke_NewIntent_CalldataExceedsLimit();
    error ClearingSpoke_NewIntent_ZeroAmount();
    error ClearingSpoke_DecimalsUnavailable(address asset);
    error ClearingSpoke_TransferFailed(address asset, address from, address to, uint256 amount);
    error ClearingSpoke_StrategyModuleNotSet(Strategy strategy);
    error ClearingSpoke_ProcessQueue_ZeroAmount();
    error ClearingSpoke_ProcessQueue_InvalidAmount(uint256 first, uint256 last, uint256 amount);
    error ClearingSpoke_ProcessQueue_InsufficientFee(uint256 provided, uint256 required);
    error ClearingSpoke_ProcessIntentQueue_NotFound(bytes32 intentId, uint256 index);
    error ClearingSpoke_WrongDestination();
    error ClearingSpoke_FillIntent_IntentExpired();
    error ClearingSpoke_FillIntent_MaxFeeExceeded(uint24 fee, uint24 maxFee);
    error ClearingSpoke_FillIntent_InvalidStatus(IntentStatus status);
    error ClearingSpoke_FillIntent_InsufficientFunds(uint256 requested, uint256 available);
    error ClearingSpoke_ExecuteIntentCalldata_InvalidStatus(IntentStatus status);
    error ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed();
    error ClearingSpoke_Withdraw_InsufficientBalance(uint256 requested, uint256 available);
    error ClearingSpoke_ReceiveMessage_NotAuthorized(address caller);
    error ClearingSpoke_ReceiveMessage_InvalidMessageType(uint8 messageType);
    error ClearingSpoke_InvalidVarUpdate(bytes32 variable);

    constructor(
        address owner_,
        uint32 hubDomain_,
        address gateway_,
        address lighthouse_,
        address watchtower_,
        address xerc20Module_
    ) {
        DOMAIN = uint32(block.chainid);
        owner = owner_;
        hubDomain = hubDomain_;
        gateway = gateway_;
        lighthouse = lighthouse_;
        watchtower = watchtower_;
        modules[Strategy.XERC20] = xerc20Module_;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert ClearingSpoke_NotOwner(msg.sender);
        _;
    }

    modifier onlyPauser() {
        if (msg.sender != lighthouse && msg.sender != watchtower) revert ClearingSpoke_Pause_NotAuthorized(msg.sender);
        _;
    }

    modifier whenNotPaused() {
        if (paused) revert ClearingSpoke_Paused();
        _;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Intents

    /// @notice Creates an intent from the caller's funds (the caller is the initiator; in practice the fee adapter).
    /// @param amount in `inputAsset` native units; the intent carries it normalized to 18 decimals.
    function newIntent(
        uint32[] calldata destinations,
        address receiver,
        address inputAsset,
        address outputAsset,
        uint256 amount,
        uint24 maxFee,
        uint48 ttl,
        bytes calldata data
    ) external whenNotPaused returns (bytes32 intentId, Intent memory intent) {
        uint256 normalizedAmount = _checkNewIntent(destinations.length, inputAsset, outputAsset, amount, maxFee, ttl, data.length);
        _takeFunds(inputAsset, amount);
        (intentId, intent) = _addIntent(destinations, receiver, inputAsset, outputAsset, normalizedAmount, maxFee, ttl, data);
    }

    /// @notice `newIntent` with the funds pulled through Permit2 (reference §4.1 step 7): `amount` of `inputAsset` moves
    /// from the caller to the spoke with `permitTransferFrom`, on the caller's signature of
    /// `PermitTransferFrom{permitted: {inputAsset, amount}, spender: this spoke, nonce, deadline}`. Whatever the
    /// asset's strategy: the xERC20 burn belongs to the variant without Permit2, so an xERC20 pulled this way stays in
    /// the spoke's custody. As in the production spoke, the pull comes first (after the pause check) and the intent
    /// checks of steps 2 to 6 after it: an invalid intent with a bad permit reverts with Permit2's error.
    function newIntent(
        uint32[] calldata destinations,
        address receiver,
        address inputAsset,
        address outputAsset,
        uint256 amount,
        uint24 maxFee,
        uint48 ttl,
        bytes calldata data,
        Permit2Params calldata permit2Params
    ) external whenNotPaused returns (bytes32 intentId, Intent memory intent) {
        Permit2Pull.pull(inputAsset, amount, permit2Params);
        uint256 normalizedAmount = _checkNewIntent(destinations.length, inputAsset, outputAsset, amount, maxFee, ttl, data.length);
        (intentId, intent) = _addIntent(destinations, receiver, inputAsset, outputAsset, normalizedAmount, maxFee, ttl, data);
    }

    /// @dev Reference §4.1 steps 2 to 6; returns the amount normalized to 18 decimals.
    function _checkNewIntent(
        uint256 destinationCount,
        address inputAsset,
        address outputAsset,
        uint256 amount,
        uint24 maxFee,
        uint48 ttl,
        uint256 dataLength
    ) private view returns (uint256 normalizedAmount) {
        _validateNewIntent(destinationCount, outputAsset, maxFee, ttl, dataLength);
        normalizedAmount = Protocol.normalizeDecimals(amount, _decimals(inputAsset), Protocol.NORMALIZED_DECIMALS);
        if (normalizedAmount == 0) revert ClearingSpoke_NewIntent_ZeroAmount();
    }

    /// @dev Reference §4.1 step 8.
    function _addIntent(
        uint32[] calldata destinations,
        address receiver,
        address inputAsset,
        address outputAsset,
        uint256 normalizedAmount,
        uint24 maxFee,
        uint48 ttl,
        bytes calldata data
    ) private returns (bytes32 intentId, Intent memory intent) {
        intent.initiator = Protocol.toBytes32(msg.sender);
        intent.receiver = Protocol.toBytes32(receiver);
        intent.inputAsset = Protocol.toBytes32(inputAsset);
        intent.outputAsset = Protocol.toBytes32(outputAsset);
        intent.maxFee = maxFee;
        intent.origin = DOMAIN;
        intent.nonce = ++nonce;
        intent.timestamp = uint48(block.timestamp);
        intent.ttl = ttl;
        intent.amount = normalizedAmount;
        intent.destinations = destinations;
        intent.data = data;

        intentId = keccak256(abi.encode(intent));
        status[intentId] = IntentStatus.ADDED;
        uint256 queueIdx = ++intentQueueLast;
        intentQueue[queueIdx] = intentId;
        emit IntentAdded(intentId, queueIdx, intent);
    }

    /// @notice Sends the next `intents.length` queued intents to the hub in one INTENT batch. The caller passes the
    /// full intents in queue order and pays at least `gateway.quoteMessage(hubDomain, message)`.
    function processIntentQueue(Intent[] calldata intents) external payable whenNotPaused {
        uint256 amount = intents.length;
        uint256 first = intentQueueFirst;
        _validateQueueAmount(first, intentQueueLast, amount);
        for (uint256 i; i < amount; ++i) {
            bytes32 intentId = keccak256(abi.encode(intents[i]));
            if (intentQueue[first + i] != intentId) revert ClearingSpoke_ProcessIntentQueue_NotFound(intentId, i);
            delete intentQueue[first + i];
        }
        intentQueueFirst = first + amount;
        (bytes32 messageId, uint256 quote) = _sendToHub(abi.encode(Protocol.MESSAGE_INTENT, abi.encode(intents)));
        emit IntentQueueProcessed(messageId, first, first + amount, quote);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Fills

    /// @notice Fills `intent` on its destination from the caller's virtual balance of the output asset, keeping `fee`
    /// dbps; the receiver gets the rest and a fill message is queued so that the hub repays the caller.
    function fillIntent(Intent calldata intent, uint24 fee)
        external
        whenNotPaused
        returns (FillMessage memory fillMessage)
    {
        if (intent.destinations.length == 0 || intent.destinations[0] != DOMAIN) {
            revert ClearingSpoke_WrongDestination();
        }
        if (block.timestamp >= uint256(intent.timestamp) + intent.ttl) revert ClearingSpoke_FillIntent_IntentExpired();
        if (fee > intent.maxFee) revert ClearingSpoke_FillIntent_MaxFeeExceeded(fee, intent.maxFee);
        bytes32 intentId = keccak256(abi.encode(intent));
        IntentStatus current = status[intentId];
        if (current != IntentStatus.NONE) revert ClearingSpoke_FillIntent_InvalidStatus(current);

        address outputAsset = Protocol.toAddress(intent.outputAsset);
        uint256 amountOut = _amountAfterFee(outputAsset, intent.amount, fee);
        uint256 available = balances[outputAsset][msg.sender];
        if (available < amountOut) revert ClearingSpoke_FillIntent_InsufficientFunds(amountOut, available);
        balances[outputAsset][msg.sender] = available - amountOut;
        status[intentId] = IntentStatus.FILLED;

        address receiver = Protocol.toAddress(intent.receiver);
        if (receiver != address(0) && outputAsset != address(0) && amountOut != 0) {
            _push(outputAsset, receiver, amountOut);
        }
        if (intent.data.length > 0) _executeCalldata(intentId, intent.data);

        // Queued after the receiver is paid and the calldata ran (the reference's order): a fill made from within
        // the calldata is queued, and reaches the hub, before this one.
        fillMessage = FillMessage({
            intentId: intentId,
            solver: Protocol.toBytes32(msg.sender),
            initiator: intent.initiator,
            fee: fee,
            executionTimestamp: uint48(block.timestamp)
        });
        uint256 queueIdx = ++fillQueueLast;
        fillQueue[queueIdx] = fillMessage;
        emit IntentFilled(intentId, msg.sender, fee, queueIdx, intent);
    }

    /// @notice Sends the next `amount` queued fill messages to the hub in one FILL batch.
    function processFillQueue(uint32 amount) external payable whenNotPaused {
        uint256 first = fillQueueFirst;
        _validateQueueAmount(first, fillQueueLast, amount);
        FillMessage[] memory fills = new FillMessage[](amount);
        for (uint256 i; i < amount; ++i) {
            fills[i] = fillQueue[first + i];
            delete fillQueue[first + i];
        }
        fillQueueFirst = first + amount;
        (bytes32 messageId, uint256 quote) = _sendToHub(abi.encode(Protocol.MESSAGE_FILL, abi.encode(fills)));
        emit FillQueueProcessed(messageId, first, first + amount, quote);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Virtual balances

    function deposit(address asset, uint256 amount) external whenNotPaused {
        _pull(asset, msg.sender, amount);
        balances[asset][msg.sender] += amount;
        emit Deposited(msg.sender, asset, amount);
    }

    function withdraw(address asset, uint256 amount) external whenNotPaused {
        uint256 available = balances[asset][msg.sender];
        if (available < amount) revert ClearingSpoke_Withdraw_InsufficientBalance(amount, available);
        balances[asset][msg.sender] = available - amount;
        _push(asset, msg.sender, amount);
        emit Withdrawn(msg.sender, asset, amount);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Messages from the hub

    /// @notice Entry point for hub messages: SETTLEMENT batches and VAR_UPDATEs. The gateway delivers them while the
    /// spoke is not paused; the owner may also call it directly, paused or not (reference §4.8).
    function receiveMessage(bytes calldata message) external {
        if (msg.sender != owner) {
            if (msg.sender != gateway) revert ClearingSpoke_ReceiveMessage_NotAuthorized(msg.sender);
            if (paused) revert ClearingSpoke_Paused();
        }
        (uint8 messageType, bytes memory data) = abi.decode(message, (uint8, bytes));
        if (messageType == Protocol.MESSAGE_SETTLEMENT) {
            Settlement[] memory settlements = abi.decode(data, (Settlement[]));
            for (uint256 i; i < settlements.length; ++i) {
                _handleSettlement(settlements[i]);
            }
        } else if (messageType == Protocol.MESSAGE_VAR_UPDATE) {
            _handleVarUpdate(data);
        } else {
            revert ClearingSpoke_ReceiveMessage_InvalidMessageType(messageType);
        }
    }

    /// @notice Runs a settled intent's calldata (settlement never runs it).
    function executeIntentCalldata(Intent calldata intent) external whenNotPaused {
        if (intent.destinations.length == 0 || intent.destinations[0] != DOMAIN) {
            revert ClearingSpoke_WrongDestination();
        }
        bytes32 intentId = keccak256(abi.encode(intent));
        IntentStatus current = status[intentId];
        if (current != IntentStatus.SETTLED) revert ClearingSpoke_ExecuteIntentCalldata_InvalidStatus(current);
        status[intentId] = IntentStatus.SETTLED_AND_MANUALLY_EXECUTED;
        if (intent.data.length > 0) _executeCalldata(intentId, intent.data);
        else emit ExternalCalldataExecuted(intentId, "");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Roles and configuration

    function pause() external onlyPauser {
        paused = true;
        emit Paused();
    }

    function unpause() external onlyPauser {
        paused = false;
        emit Unpaused();
    }

    function updateGateway(address gateway_) external onlyOwner {
        _updateGateway(gateway_);
    }

    function updateLighthouse(address lighthouse_) external onlyOwner {
        _updateLighthouse(lighthouse_);
    }

    function updateWatchtower(address watchtower_) external onlyOwner {
        _updateWatchtower(watchtower_);
    }

    function updateHubDomain(uint32 hubDomain_) external onlyOwner {
        emit HubDomainUpdated(hubDomain, hubDomain_);
        hubDomain = hubDomain_;
    }

    function setStrategyForAsset(address asset, Strategy strategy) external onlyOwner {
        strategies[asset] = strategy;
        emit StrategySetForAsset(asset, strategy);
    }

    function setModuleForStrategy(Strategy strategy, address module) external onlyOwner {
        modules[strategy] = module;
        emit ModuleSetForStrategy(strategy, module);
    }

    function transferOwnership(address newOwner) external onlyOwner {
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Internals

    /// @dev reference §4.1 checks 2 to 5, in order.
    function _validateNewIntent(
        uint256 destinationCount,
        address outputAsset,
        uint24 maxFee,
        uint48 ttl,
        uint256 dataLength
    ) private pure {
        if (destinationCount > Protocol.MAX_DESTINATIONS) revert ClearingSpoke_NewIntent_InvalidIntent();
        if (destinationCount == 1) {
            // A solver intent names the asset it wants on the destination.
            if (ttl != 0 && outputAsset == address(0)) revert ClearingSpoke_NewIntent_InvalidIntent();
        } else {
            // Multi-destination (or destination-less) intents are netting-only.
            if (ttl != 0 || outputAsset != address(0)) revert ClearingSpoke_NewIntent_InvalidIntent();
        }
        if (maxFee > Protocol.DBPS_DENOMINATOR) {
            revert ClearingSpoke_NewIntent_MaxFeeExceeded(maxFee, Protocol.DBPS_DENOMINATOR);
        }
        if (dataLength > Protocol.MAX_CALLDATA_SIZE) revert ClearingSpoke_NewIntent_CalldataExceedsLimit();
    }

    function _validateQueueAmount(uint256 first, uint256 last, uint256 amount) private pure {
        if (amount == 0) revert ClearingSpoke_ProcessQueue_ZeroAmount();
        if (first + amount - 1 > last) revert ClearingSpoke_ProcessQueue_InvalidAmount(first, last, amount);
    }

    function _sendToHub(bytes memory message) private returns (bytes32 messageId, uint256 quote) {
        uint32 destination = hubDomain;
        ISpokeGateway spokeGateway = ISpokeGateway(gateway);
        quote = spokeGateway.quoteMessage(destination, message);
        if (msg.value < quote) revert ClearingSpoke_ProcessQueue_InsufficientFee(msg.value, quote);
        // The whole value goes to the gateway, which keeps the quote and refunds the rest to tx.origin (§1.6).
        messageId = spokeGateway.sendMessage{value: msg.value}(destination, message);
    }

    /// @dev DEFAULT: pull from the caller. XERC20: the module burns from the caller (who approved the module).
    function _takeFunds(address asset, uint256 amount) private {
        if (strategies[asset] == Strategy.XERC20) {
            IXERC20Module(_module(Strategy.XERC20)).handleBurnStrategy(asset, msg.sender, amount);
        } else {
            _pull(asset, msg.sender, amount);
        }
    }

    /// @dev `normalize(amount, 18 -> output decimals)` minus `fee` dbps; 0 without an output asset.
    function _amountAfterFee(address outputAsset, uint256 amount, uint24 fee) private view returns (uint256) {
        if (outputAsset == address(0)) return 0;
        uint256 amountOut = Protocol.normalizeDecimals(amount, Protocol.NORMALIZED_DECIMALS, _decimals(outputAsset));
        return amountOut - (amountOut * fee) / Protocol.DBPS_DENOMINATOR;
    }

    function _handleSettlement(Settlement memory settlement) private {
        IntentStatus current = status[settlement.intentId];
        if (current == IntentStatus.SETTLED || current == IntentStatus.SETTLED_AND_MANUALLY_EXECUTED) return;
        status[settlement.intentId] = IntentStatus.SETTLED;

        address asset = Protocol.toAddress(settlement.asset);
        address recipient = Protocol.toAddress(settlement.recipient);
        // An asset without a readable decimals() is taken as 18 decimals so that the batch goes on.
        (bool known, uint8 decimals) = TokenLib.tryDecimals(asset);
        uint256 amount = Protocol.normalizeDecimals(
            settlement.amount, Protocol.NORMALIZED_DECIMALS, known ? decimals : Protocol.NORMALIZED_DECIMALS
        );
        if (amount > 0) {
            if (strategies[asset] == Strategy.XERC20) {
                _settleXERC20(asset, recipient, amount, settlement.updateVirtualBalance);
            } else {
                _settleDefault(asset, recipient, amount, settlement.updateVirtualBalance);
            }
        }
        emit Settled(settlement.intentId, recipient, asset, amount);
    }

    function _settleDefault(address asset, address recipient, uint256 amount, bool updateVirtualBalance) private {
        if (updateVirtualBalance) {
            balances[asset][recipient] += amount;
            return;
        }
        (bool ok,) = TokenLib.tryTransfer(asset, recipient, amount);
        if (!ok) {
            balances[asset][recipient] += amount;
            emit AssetTransferFailed(asset, recipient, amount);
        }
    }

    function _settleXERC20(address asset, address recipient, uint256 amount, bool updateVirtualBalance) private {
        address mintRecipient = updateVirtualBalance ? address(this) : recipient;
        bool success =
            IXERC20Module(_module(Strategy.XERC20)).handleMintStrategy(asset, mintRecipient, recipient, amount);
        if (!success) emit AssetMintFailed(asset, recipient, amount, Strategy.XERC20);
        else if (updateVirtualBalance) balances[asset][recipient] += amount;
    }

    /// @dev Variables other than GATEWAY, MAILBOX, LIGHTHOUSE and WATCHTOWER are refused; values are
    /// `abi.encode(bytes32)`. MAILBOX goes to the gateway (`updateMailbox`), whose mailbox is its relayer.
    function _handleVarUpdate(bytes memory data) private {
        (bytes32 variable, bytes memory value) = abi.decode(data, (bytes32, bytes));
        if (variable == GATEWAY_HASH) {
            _updateGateway(Protocol.toAddress(abi.decode(value, (bytes32))));
        } else if (variable == MAILBOX_HASH) {
            ISpokeGateway(gateway).updateMailbox(Protocol.toAddress(abi.decode(value, (bytes32))));
        } else if (variable == LIGHTHOUSE_HASH) {
            _updateLighthouse(Protocol.toAddress(abi.decode(value, (bytes32))));
        } else if (variable == WATCHTOWER_HASH) {
            _updateWatchtower(Protocol.toAddress(abi.decode(value, (bytes32))));
        } else {
            revert ClearingSpoke_InvalidVarUpdate(variable);
        }
    }

    function _updateGateway(address gateway_) private {
        emit GatewayUpdated(gateway, gateway_);
        gateway = gateway_;
    }

    function _updateLighthouse(address lighthouse_) private {
        emit LighthouseUpdated(lighthouse, lighthouse_);
        lighthouse = lighthouse_;
    }

    function _updateWatchtower(address watchtower_) private {
        emit WatchtowerUpdated(watchtower, watchtower_);
        watchtower = watchtower_;
    }

    /// @dev `data = abi.encode(address target, bytes callData)`. A failing call reverts the caller's transaction.
    function _executeCalldata(bytes32 intentId, bytes calldata data) private {
        (address target, bytes memory callData) = abi.decode(data, (address, bytes));
        uint256 gasLimit = gasleft() - Protocol.EXECUTE_CALLDATA_RESERVE_GAS;
        bytes memory returnData = new bytes(Protocol.DEFAULT_COPY_BYTES);
        bool success;
        assembly ("memory-safe") {
            success := call(gasLimit, target, 0, add(callData, 0x20), mload(callData), 0, 0)
            // Copy at most DEFAULT_COPY_BYTES of return data: a huge return cannot exhaust the reserve.
            let size := returndatasize()
            if gt(size, 256) { size := 256 }
            mstore(returnData, size)
            returndatacopy(add(returnData, 0x20), 0, size)
        }
        if (!success) revert ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed();
        emit ExternalCalldataExecuted(intentId, returnData);
    }

    function _module(Strategy strategy) private view returns (address module) {
        module = modules[strategy];
        if (module == address(0)) revert ClearingSpoke_StrategyModuleNotSet(strategy);
    }

    function _decimals(address asset) private view returns (uint8) {
        (bool ok, uint8 decimals) = TokenLib.tryDecimals(asset);
        if (!ok) revert ClearingSpoke_DecimalsUnavailable(asset);
        return decimals;
    }

    function _pull(address asset, address from, uint256 amount) private {
        (bool ok, bytes memory revertData) = TokenLib.tryTransferFrom(asset, from, address(this), amount);
        if (!ok) {
            TokenLib.bubble(revertData);
            revert ClearingSpoke_TransferFailed(asset, from, address(this), amount);
        }
    }

    function _push(address asset, address to, uint256 amount) private {
        (bool ok, bytes memory revertData) = TokenLib.tryTransfer(asset, to, amount);
        if (!ok) {
            TokenLib.bubble(revertData);
            revert ClearingSpoke_TransferFailed(asset, address(this), to, amount);
        }
    }
}
