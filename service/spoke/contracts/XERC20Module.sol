// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IXERC20, IXERC20Module} from "./ClearingTypes.sol";

/// @notice Burns xERC20 on intent creation and mints on settlement for one spoke. A mint the token refuses (over the
/// module's minting limit, or reverting) becomes debt of the fallback recipient, minted later by anyone with `mintDebt`.
contract XERC20Module is IXERC20Module {
    address public immutable spoke;
    mapping(address account => mapping(address asset => uint256)) public mintable;

    event HandleMintStrategyFailed(address indexed asset, address indexed recipient, uint256 amount);
    event DebtMinted(address indexed asset, address indexed recipient, uint256 amount);

    error XERC20Module_NotSpoke(address caller);
    error XERC20Module_HandleBurnStrategy_InsufficientBurningLimit(address asset, uint256 limit, uint256 amount);
    error XERC20Module_MintDebt_InsufficientMintable(uint256 requested, uint256 available);
    error XERC20Module_MintDebt_InsufficientMintingLimit(uint256 requested, uint256 available);

    constructor(address spoke_) {
        spoke = spoke_;
    }

    modifier onlySpoke() {
        if (msg.sender != spoke) revert XERC20Module_NotSpoke(msg.sender);
        _;
    }

    /// @notice Burns `amount` of `asset` from `user`, who must have approved this module.
    function handleBurnStrategy(address asset, address user, uint256 amount) external onlySpoke {
        uint256 limit = IXERC20(asset).burningCurrentLimitOf(address(this));
        if (limit < amount) revert XERC20Module_HandleBurnStrategy_InsufficientBurningLimit(asset, limit, amount);
        IXERC20(asset).burn(user, amount);
    }

    /// @notice Mints to `mintRecipient`, or records the amount as debt of `fallbackRecipient`. Never reverts, so one
    /// bad settlement cannot block a batch.
    function handleMintStrategy(address asset, address mintRecipient, address fallbackRecipient, uint256 amount)
        external
        onlySpoke
        returns (bool success)
    {
        (bool limitKnown, uint256 limit) = _mintingLimit(asset);
        if (limitKnown && limit >= amount) success = _tryMint(asset, mintRecipient, amount);
        if (!success) {
            mintable[fallbackRecipient][asset] += amount;
            emit HandleMintStrategyFailed(asset, fallbackRecipient, amount);
        }
    }

    /// @notice Mints `amount` of `recipient`'s recorded debt; callable by anyone once the limit allows.
    function mintDebt(address asset, address recipient, uint256 amount) external {
        uint256 debt = mintable[recipient][asset];
        if (debt < amount) revert XERC20Module_MintDebt_InsufficientMintable(amount, debt);
        uint256 limit = IXERC20(asset).mintingCurrentLimitOf(address(this));
        if (limit < amount) revert XERC20Module_MintDebt_InsufficientMintingLimit(amount, limit);
        mintable[recipient][asset] = debt - amount;
        IXERC20(asset).mint(recipient, amount);
        emit DebtMinted(asset, recipient, amount);
    }

    function _mintingLimit(address asset) private view returns (bool ok, uint256 limit) {
        if (asset.code.length == 0) return (false, 0);
        (bool success, bytes memory returnData) =
            asset.staticcall(abi.encodeCall(IXERC20.mintingCurrentLimitOf, (address(this))));
        if (!success || returnData.length < 32) return (false, 0);
        return (true, abi.decode(returnData, (uint256)));
    }

    function _tryMint(address asset, address recipient, uint256 amount) private returns (bool) {
        (bool success,) = asset.call(abi.encodeCall(IXERC20.mint, (recipient, amount)));
        return success;
    }
}
