"""The refund policy every case of this suite is held to; the cases live in a sibling folder."""

from openeval.code_checks import CheckResponse


def refund_within_limit(tool_calls, params):
    refunds = [call for call in tool_calls if call.tool_name == "refund_payment"]
    if not refunds:
        return CheckResponse(False, "no refund was made")
    amounts = [call.tool_args["amount"] for call in refunds]
    over = [amount for amount in amounts if amount > params["limit"]]
    if over:
        return CheckResponse(False, f"refunded {over[0]}, above the limit of {params['limit']}")
    return CheckResponse(True, f"{len(refunds)} refund(s) within the limit")
