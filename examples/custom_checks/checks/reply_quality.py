"""Reply quality, written as a class ``Check`` with a static ``evaluate`` (the shape other
code-check tools use, so such a check moves over unchanged).

Three requirements for the final reply after a refund: it quotes the refund id, states the
amount refunded (``59.90``), and uses none of the case's ``banned`` phrases. The check returns
the share met, with what is missing; the case's ``threshold`` decides whether that is enough.
"""

import json


class Check:
    @staticmethod
    def evaluate(model_output, tool_calls, params):
        reply = model_output.lower()
        refunds = [c for c in tool_calls if c.tool_name == "refund_payment" and c.tool_result]
        missing = []
        for call in refunds:
            refund_id = json.loads(call.tool_result)["refund_id"]
            if refund_id.lower() not in reply:
                missing.append(f"quote the refund id {refund_id}")
            if f"{call.tool_args['amount']:.2f}" not in reply:
                missing.append(f"state the amount {call.tool_args['amount']:.2f}")
        banned = [phrase for phrase in params.get("banned", []) if phrase.lower() in reply]
        missing += [f"avoid {phrase!r}" for phrase in banned]
        requirements = 2 * len(refunds) + len(params.get("banned", []))
        if not requirements:
            return 1.0, "nothing to require: no refund and no banned phrase"
        explanation = "; ".join(missing) or "meets every requirement"
        return (requirements - len(missing)) / requirements, explanation
