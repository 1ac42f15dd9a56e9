"""Old home of the Ray engine of ``openeval score``, kept as an import path.

The engine lives with the pipeline that uses it, in :mod:`openeval.production.engines.ray`;
``openeval.distributed.ray`` is that same module. Importing this package loads no engine.
"""
