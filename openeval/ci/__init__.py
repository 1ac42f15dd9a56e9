"""Glue between OpenEval's CLI and CI systems (the GitHub Action's run step lives here)."""
