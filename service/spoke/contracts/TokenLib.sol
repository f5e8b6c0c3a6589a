// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice Token calls that tolerate non-standard ERC20s: a call succeeds when it does not revert and returns either
/// nothing or `true`, and the token has code (a call to an address without code would otherwise "succeed").
library TokenLib {
    /// @return ok whether the call succeeded
    /// @return revertData the callee's revert data when it reverted (empty when it returned false or has no code)
    function tryCall(address token, bytes memory callData) internal returns (bool ok, bytes memory revertData) {
        if (token.code.length == 0) return (false, revertData);
        bytes memory returnData;
        (ok, returnData) = token.call(callData);
        if (!ok) return (false, returnData);
        if (returnData.length == 0) return (true, revertData);
        if (returnData.length < 32) return (false, revertData);
        ok = abi.decode(returnData, (uint256)) == 1;
    }

    function tryTransfer(address token, address to, uint256 amount) internal returns (bool ok, bytes memory revertData) {
        return tryCall(token, abi.encodeWithSelector(0xa9059cbb, to, amount));
    }

    function tryTransferFrom(address token, address from, address to, uint256 amount)
        internal
        returns (bool ok, bytes memory revertData)
    {
        return tryCall(token, abi.encodeWithSelector(0x23b872dd, from, to, amount));
    }

    function tryApprove(address token, address spender, uint256 amount) internal returns (bool ok, bytes memory revertData) {
        return tryCall(token, abi.encodeWithSelector(0x095ea7b3, spender, amount));
    }

    /// @notice `decimals()` through a static call; `ok` is false when the token has no code or answers garbage.
    function tryDecimals(address token) internal view returns (bool ok, uint8 decimals) {
        if (token.code.length == 0) return (false, 0);
        (bool success, bytes memory returnData) = token.staticcall(abi.encodeWithSelector(0x313ce567));
        if (!success || returnData.length < 32) return (false, 0);
        uint256 value = abi.decode(returnData, (uint256));
        if (value > type(uint8).max) return (false, 0);
        return (true, uint8(value));
    }

    /// @notice Re-throws a callee's revert data (so its custom error reaches the caller) when there is any.
    function bubble(bytes memory revertData) internal pure {
        if (revertData.length > 0) {
            assembly ("memory-safe") {
                revert(add(revertData, 32), mload(revertData))
            }
        }
    }
}
