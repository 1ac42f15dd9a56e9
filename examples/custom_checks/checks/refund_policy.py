"""Refund policy, written as a plain function: OpenEval passes the inputs it names.

A refund is within policy when the agent looked the order up first, and refunded no more than
the order's total and no more than the case's ``max_refund`` setting.
"""

import json

from openeval.code_checks import CheckResponse


def refund_within_policy(tool_calls, params):
    looked_up = {}  # order id -> total, from lookup_order results seen so far
    refunds = 0
    for call in tool_calls:
        args = call.tool_args or {}
        if call.tool_name == "lookup_order" and call.tool_result:
            looked_up[args.get("order_id")] = json.loads(call.tool_result)["total"]
        elif call.tool_name == "refund_payment":
            refunds += 1
            order, amount = args.get("order_id"), args.get("amount")
            if order not in looked_up:
                return CheckResponse(False, f"refunded order {order} before looking it up")
            if amount > looked_up[order]:
                return CheckResponse(
                    False, f"refunded {amount} on order {order}, whose total is {looked_up[order]}"
                )
            if amount > params["max_refund"]:
                return CheckResponse(
                    False, f"refunded {amount}, above the limit of {params['max_refund']}"
                )
    if not refunds:
        return CheckResponse(False, "no refund was made")
    return CheckResponse(True, f"{refunds} refund(s) within policy")
