// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "./ERC20.sol";

/// @notice A plain test token with configurable decimals; only the deployer mints.
contract TestERC20 is ERC20 {
    address public immutable owner;

    error TestERC20_NotOwner(address caller);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_, decimals_) {
        owner = msg.sender;
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != owner) revert TestERC20_NotOwner(msg.sender);
        _mint(to, amount);
    }
}
