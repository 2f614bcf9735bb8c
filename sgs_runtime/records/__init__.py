"""What a game leaves and how people read it: replay from the decision log (:mod:`.replay`),
the log in sentences (:mod:`.narrate`), the presentation model for the terminal and the browser
(:mod:`.present`) and rows describing loaded content (:mod:`.catalog`).
"""
