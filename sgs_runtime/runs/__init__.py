"""Bot games in bulk: simulation (:mod:`.simulate`, :mod:`.backends`), balance statistics and
A/B runs (:mod:`.stats`, :mod:`.abtest`), role-reading figures (:mod:`.rolereading`), reports
(:mod:`.report`), invariants (:mod:`.invariants`), and copies of a game at a decision played out
for search (:mod:`.fork`).
"""
