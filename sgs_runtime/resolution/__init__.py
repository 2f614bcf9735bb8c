"""How things resolve: the game's driver and the rules of resolution.

The game (:mod:`.game`), turns and phases (:mod:`.turn`), triggers (:mod:`.triggers`), card uses
(:mod:`.use`), response windows (:mod:`.respond`), card moves (:mod:`.moves`), HP (:mod:`.hp`),
judgement (:mod:`.judge`), the language's statements (:mod:`.ops`), requests and their legal
answers (:mod:`.requests`, :mod:`.legal`), quantities and prohibitions (:mod:`.quantities`,
:mod:`.prohibitions`) and what expressions can say (:mod:`.vocabulary`).
"""
