"""The negative evaluation: what must not be recalled is not, on every retrieval path.

:mod:`~mragent.apps.negative.run` makes the checks (``mragent bench --negative``),
:mod:`~mragent.apps.negative.facts` builds the facts they are made on, and
:mod:`~mragent.apps.negative.report` is their report.
"""
