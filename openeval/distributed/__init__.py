"""Scoring production traces on an existing distributed engine, past what one machine does.

:mod:`openeval.distributed.ray` runs ``openeval score`` on Ray Data (``openeval-core[ray]``).
Every engine here calls the same pure functions as the local path
(:func:`openeval.production.read_blob_records`, :func:`openeval.production.score_record`), so
its rows are the local rows, byte for byte (proposals/0081-distributed-scoring.md). Importing
this package loads no engine.
"""
