"""The browser table: ``sgs serve`` holds games in memory and plays them with browsers and bots.

* :mod:`sgs_web.tables`: a table is one game, played in its own thread; a browser seat's agent
  waits for its browser's answer, bots fill the other seats;
* :mod:`sgs_web.frames`: what one seat's page is sent, built only from that seat's view;
* :mod:`sgs_web.replays`: a saved game (seed and decisions) stepped forward and back;
* :mod:`sgs_web.app`: the web application (Starlette: pages, a JSON API and websockets);
* :mod:`sgs_web.cli`: the ``sgs serve`` command.

The application needs the ``web`` extra (``pip install -e '.[web]'``).
"""
