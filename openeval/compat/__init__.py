"""openeval-core 0.2.1's Python API, kept working as deprecated shims, all in one corner.

Real clients call it: fixtura 2.0.1's ``fixtura eval`` imports ``openeval.runner.run_eval``,
and teams wrote ``run_suite(path, [metric objects])`` and subclasses of ``BaseMetric``. Each
shim warns with a :class:`DeprecationWarning` naming its replacement and returns what 0.2.1
returned. The old import paths (``openeval.runner``, ``openeval.metrics.BaseMetric``,
``openeval.legacy``, ``openeval.deprecation``) re-export these objects. The migration is in
the README ("Moving from openeval-core 0.2.1").

- :mod:`openeval.compat.legacy`: ``run_eval``, ``run_suite_021`` and the wrapper that gives
  today's ``run_suite`` its 0.2.1 form;
- :mod:`openeval.compat.metric`: ``BaseMetric``;
- :mod:`openeval.compat.deprecation`: the warning and 0.2.1's display names of metrics.

The package itself exports nothing: each shim is reached by its old path or its module here.
"""
