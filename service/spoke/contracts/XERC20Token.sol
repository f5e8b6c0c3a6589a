// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "./ERC20.sol";
import {IXERC20} from "./ClearingTypes.sol";

/// @notice Test xERC20 (the xERC20 standard's rate-limited bridge minting and burning): each bridge has a mint and a
/// burn limit that refills linearly over `DURATION` from its current value up to its max.
contract XERC20Token is ERC20, IXERC20 {
    struct BridgeParameters {
        uint256 timestamp;
        uint256 ratePerSecond;
        uint256 maxLimit;
        uint256 currentLimit;
    }

    struct Bridge {
        BridgeParameters minterParams;
        BridgeParameters burnerParams;
    }

    uint256 public constant DURATION = 1 days;

    address public owner;
    mapping(address bridge => Bridge) public bridges;

    event BridgeLimitsSet(uint256 mintingLimit, uint256 burningLimit, address indexed bridge);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error XERC20Token_NotOwner(address caller);
    error XERC20Token_NotHighEnoughLimits(address bridge, uint256 requested, uint256 available);
    error XERC20Token_LimitsTooHigh();

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_, decimals_) {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert XERC20Token_NotOwner(msg.sender);
        _;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @notice Limit-free mint for funding test accounts.
    function ownerMint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @notice Bridge mint, limited by the caller's minting limit.
    function mint(address user, uint256 amount) external {
        uint256 available = mintingCurrentLimitOf(msg.sender);
        if (available < amount) revert XERC20Token_NotHighEnoughLimits(msg.sender, amount, available);
        BridgeParameters storage params = bridges[msg.sender].minterParams;
        params.timestamp = block.timestamp;
        params.currentLimit = available - amount;
        _mint(user, amount);
    }

    /// @notice Bridge burn, limited by the caller's burning limit; burning from someone else spends their allowance.
    function burn(address user, uint256 amount) external {
        uint256 available = burningCurrentLimitOf(msg.sender);
        if (available < amount) revert XERC20Token_NotHighEnoughLimits(msg.sender, amount, available);
        if (msg.sender != user) _spendAllowance(user, msg.sender, amount);
        BridgeParameters storage params = bridges[msg.sender].burnerParams;
        params.timestamp = block.timestamp;
        params.currentLimit = available - amount;
        _burn(user, amount);
    }

    /// @notice Limits above `type(uint256).max / 2` are refused, as in the xERC20 standard (`IXERC20_LimitsTooHigh`):
    /// the refill `currentLimit + elapsed * ratePerSecond` then never overflows.
    function setLimits(address bridge, uint256 mintingLimit, uint256 burningLimit) external onlyOwner {
        if (mintingLimit > type(uint256).max / 2 || burningLimit > type(uint256).max / 2) {
            revert XERC20Token_LimitsTooHigh();
        }
        _changeLimit(bridges[bridge].minterParams, mintingLimit);
        _changeLimit(bridges[bridge].burnerParams, burningLimit);
        emit BridgeLimitsSet(mintingLimit, burningLimit, bridge);
    }

    function mintingMaxLimitOf(address bridge) external view returns (uint256) {
        return bridges[bridge].minterParams.maxLimit;
    }

    function burningMaxLimitOf(address bridge) external view returns (uint256) {
        return bridges[bridge].burnerParams.maxLimit;
    }

    function mintingCurrentLimitOf(address bridge) public view returns (uint256) {
        return _currentLimit(bridges[bridge].minterParams);
    }

    function burningCurrentLimitOf(address bridge) public view returns (uint256) {
        return _currentLimit(bridges[bridge].burnerParams);
    }

    /// @dev A new max moves the current limit by the same difference (floored at 0), as in the standard.
    function _changeLimit(BridgeParameters storage params, uint256 limit) private {
        uint256 oldLimit = params.maxLimit;
        uint256 current = _currentLimit(params);
        if (oldLimit > limit) {
            uint256 difference = oldLimit - limit;
            current = current > difference ? current - difference : 0;
        } else {
            current = current + (limit - oldLimit);
        }
        params.maxLimit = limit;
        params.currentLimit = current;
        params.ratePerSecond = limit / DURATION;
        params.timestamp = block.timestamp;
    }

    function _currentLimit(BridgeParameters storage params) private view returns (uint256) {
        uint256 limit = params.currentLimit;
        uint256 maxLimit = params.maxLimit;
        if (limit == maxLimit) return limit;
        if (params.timestamp + DURATION <= block.timestamp) return maxLimit;
        uint256 refilled = limit + (block.timestamp - params.timestamp) * params.ratePerSecond;
        return refilled > maxLimit ? maxLimit : refilled;
    }
}
