"""The GitHub Action: settings, the GitHub client, baseline discovery, publishing.

``main`` is the only impure shell; everything else takes its collaborators as
arguments so that one integration test can drive the whole action.
"""
