"""Learning at the table: the coach, the search's hints and the review after the game.

A table allows them when its room says ``hints`` (the host ticks "Hints allowed"; a practice room,
"Learn <game>", always does). Each works from one seat's view only, as the strong bot does
(``app/bots/search.py``): ``hints`` weighs the seat's options in playouts from worlds drawn from its
view, and each game's ``coach.py`` says what an option is in the player's words. The searches run in
niced worker processes (``workers``), off the event loop and capped in number, so a hint never
delays anyone's move.
"""
