// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice Protocol structures shared by spoke, gateway, fee adapter and hub (V1 layouts; field order defines the ABI
/// encoding and therefore the intent id).

/// @dev Status enum shared by hub and spokes, in on-chain order.
enum IntentStatus {
    NONE,
    ADDED,
    DEPOSIT_PROCESSED,
    FILLED,
    ADDED_AND_FILLED,
    INVOICED,
    SETTLED,
    SETTLED_AND_MANUALLY_EXECUTED,
    UNSUPPORTED,
    UNSUPPORTED_RETURNED
}

/// @dev How a spoke moves an asset: DEFAULT custodies it (netting), XERC20 burns on origin and mints on destination.
enum Strategy {
    DEFAULT,
    XERC20
}

/// @dev `amount` is 18-decimal normalized, `maxFee` in dbps (1/100_000).
struct Intent {
    bytes32 initiator;
    bytes32 receiver;
    bytes32 inputAsset;
    bytes32 outputAsset;
    uint24 maxFee;
    uint32 origin;
    uint64 nonce;
    uint48 timestamp;
    uint48 ttl;
    uint256 amount;
    uint32[] destinations;
    bytes data;
}

struct FillMessage {
    bytes32 intentId;
    bytes32 solver;
    bytes32 initiator;
    uint24 fee;
    uint48 executionTimestamp;
}

struct Settlement {
    bytes32 intentId;
    uint256 amount;
    bytes32 asset;
    bytes32 recipient;
    bool updateVirtualBalance;
}

library Protocol {
    uint24 internal constant DBPS_DENOMINATOR = 100_000;
    uint8 internal constant NORMALIZED_DECIMALS = 18;
    uint256 internal constant MAX_DESTINATIONS = 10;
    uint256 internal constant MAX_CALLDATA_SIZE = 50_000;
    /// @dev Gas kept back when executing intent calldata, so the spoke can still finish after a failing call.
    uint256 internal constant EXECUTE_CALLDATA_RESERVE_GAS = 10_000;
    /// @dev Return-data bytes copied from intent calldata execution.
    uint256 internal constant DEFAULT_COPY_BYTES = 256;

    // Message envelope types: `abi.encode(uint8 type, bytes data)`.
    uint8 internal constant MESSAGE_INTENT = 0;
    uint8 internal constant MESSAGE_FILL = 1;
    uint8 internal constant MESSAGE_SETTLEMENT = 2;
    uint8 internal constant MESSAGE_VAR_UPDATE = 3;

    /// @notice Multiplies or divides (truncating) `amount` from `fromDecimals` to `toDecimals`.
    function normalizeDecimals(uint256 amount, uint8 fromDecimals, uint8 toDecimals) internal pure returns (uint256) {
        if (fromDecimals == toDecimals) return amount;
        if (fromDecimals < toDecimals) return amount * 10 ** (toDecimals - fromDecimals);
        uint256 difference = fromDecimals - toDecimals;
        // 10**78 exceeds every uint256, so the quotient is 0.
        if (difference > 77) return 0;
        return amount / 10 ** difference;
    }

    function toBytes32(address account) internal pure returns (bytes32) {
        return bytes32(uint256(uint160(account)));
    }

    /// @dev The low 20 bytes of a word (how EVM spokes read bytes32 addresses).
    function toAddress(bytes32 word) internal pure returns (address) {
        return address(uint160(uint256(word)));
    }
}

interface IERC20 {
    function totalSupply() external view returns (uint256);
    function balanceOf(address account) external view returns (uint256);
    function allowance(address owner, address spender) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
}

interface IXERC20 {
    function mint(address user, uint256 amount) external;
    function burn(address user, uint256 amount) external;
    function mintingCurrentLimitOf(address bridge) external view returns (uint256);
    function burningCurrentLimitOf(address bridge) external view returns (uint256);
}

interface ISpokeGateway {
    function quoteMessage(uint32 chainId, bytes calldata message) external view returns (uint256);
    function sendMessage(uint32 destination, bytes calldata message) external payable returns (bytes32 messageId);
    function updateMailbox(address mailbox) external;
}

interface IClearingSpokeReceiver {
    function receiveMessage(bytes calldata message) external;
}

interface IXERC20Module {
    function handleBurnStrategy(address asset, address user, uint256 amount) external;
    function handleMintStrategy(address asset, address mintRecipient, address fallbackRecipient, uint256 amount)
        external
        returns (bool success);
}

/// @dev What the fee adapter needs from the spoke.
interface IClearingSpoke {
    function newIntent(
        uint32[] calldata destinations,
        address receiver,
        address inputAsset,
        address outputAsset,
        uint256 amount,
        uint24 maxFee,
        uint48 ttl,
        bytes calldata data
    ) external returns (bytes32 intentId, Intent memory intent);

    function withdraw(address asset, uint256 amount) external;

    function strategies(address asset) external view returns (Strategy);
}
