// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {TestERC20} from "./TestERC20.sol";

/// @notice A test token that refuses transfers to blacklisted recipients and approvals of blacklisted spenders, like
/// USDC/USDT blacklists: by default the call returns false; with `revertOnBlacklisted` it reverts with
/// `BlacklistERC20_Blacklisted`.
contract BlacklistERC20 is TestERC20 {
    mapping(address account => bool) public blacklisted;
    bool public revertOnBlacklisted;

    event BlacklistUpdated(address indexed account, bool blacklisted);

    error BlacklistERC20_Blacklisted(address account);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) TestERC20(name_, symbol_, decimals_) {}

    function setBlacklisted(address account, bool value) external {
        if (msg.sender != owner) revert TestERC20_NotOwner(msg.sender);
        blacklisted[account] = value;
        emit BlacklistUpdated(account, value);
    }

    function setRevertOnBlacklisted(bool value) external {
        if (msg.sender != owner) revert TestERC20_NotOwner(msg.sender);
        revertOnBlacklisted = value;
    }

    function transfer(address to, uint256 amount) public override returns (bool) {
        if (blacklisted[to]) return _refuse(to);
        return super.transfer(to, amount);
    }

    function transferFrom(address from, address to, uint256 amount) public override returns (bool) {
        if (blacklisted[to]) return _refuse(to);
        return super.transferFrom(from, to, amount);
    }

    function approve(address spender, uint256 amount) public override returns (bool) {
        if (blacklisted[spender]) return _refuse(spender);
        return super.approve(spender, amount);
    }

    function _refuse(address to) private view returns (bool) {
        if (revertOnBlacklisted) revert BlacklistERC20_Blacklisted(to);
        return false;
    }
}
