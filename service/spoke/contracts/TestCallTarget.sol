// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice Target for intent calldata in tests: records calls, forwards a call, or fails on demand.
contract TestCallTarget {
    uint256 public calls;
    uint256 public lastValue;
    address public lastCaller;

    event Called(address indexed caller, uint256 value);

    error TestCallTarget_Failed(uint256 value);

    function record(uint256 value) external returns (uint256) {
        calls += 1;
        lastValue = value;
        lastCaller = msg.sender;
        emit Called(msg.sender, value);
        return value * 2;
    }

    /// @notice Calls `target` with `data` and bubbles its revert (a fill made from within a fill's calldata).
    function forward(address target, bytes calldata data) external returns (bytes memory result) {
        bool ok;
        (ok, result) = target.call(data);
        if (!ok) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
    }

    function fail(uint256 value) external pure {
        revert TestCallTarget_Failed(value);
    }
}
