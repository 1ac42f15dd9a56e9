"""The rules this suite's cases are held to (collected by tests/testing/test_pytest_plugin.py)."""


def refund_within_limit(tool_calls, params):
    amounts = [call.tool_args["amount"] for call in tool_calls if call.tool_name == "refund"]
    over = [amount for amount in amounts if amount > params["limit"]]
    if over:
        return False, f"refunded {over[0]}, above the limit of {params['limit']}"
    return bool(amounts), f"{len(amounts)} refund(s) within the limit"


def reply_length(model_output):
    return len(model_output)
