#!/bin/sh
# OpenEval in any CI (Jenkins, Buildkite, a cron job): evaluate a suite, keep the JUnit file and
# the Markdown report beside the results folder, and exit with the gate's code (0 passed, 1
# failed, 2 bad usage or an unreadable suite). Extra arguments go to `openeval run`, e.g.
#   examples/ci/openeval-ci.sh --fail-under 0.9
# OPENEVAL_SUITE (default evals) and OPENEVAL_OUTPUT (default openeval-results) pick the folders.
set -u
suite="${OPENEVAL_SUITE:-evals}"
output="${OPENEVAL_OUTPUT:-openeval-results}"
exec openeval run --suite "$suite" --output "$output" --junit openeval-junit.xml \
  --report markdown=openeval-report.md "$@"
