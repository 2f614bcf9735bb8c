"""What a table is at a moment, and who may see what.

Cards, zones and players (:mod:`.model`), the compiled content (:mod:`.definitions`), events
and timing points (:mod:`.events`), the frame effects run in (:mod:`.frame`), what a card is now
(:mod:`.cardview`), which skills a player has now (:mod:`.skillset`), answers remembered for one
state version (:mod:`.statecache`), who may see each card (:mod:`.visibility`), one seat's view
(:mod:`.seatview`) and the redeal of what a seat cannot see (:mod:`.redeal`).
"""
