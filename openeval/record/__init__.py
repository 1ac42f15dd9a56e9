"""``openeval record``: a local OTLP/HTTP receiver that turns exported spans into trace files."""
