"""Play and watch the games in a browser: a Starlette app on uvicorn (the `web` extra).

`session` holds a table, people at one or more seats and agents at the others, and tells each page only what
its seat sees (a spectator: what every seat sees alike); `server` serves it on 127.0.0.1 (`python -m
quando_env serve`); `replay_page` turns a game record into one self-contained page (`python -m quando_env
replay FILE --html OUT`). Tables are drawn by quando_env.svg. The pages in `static/` are plain HTML and
JavaScript: nothing to build. Nothing here imports the command line (quando_env.cli), which stands beside it.
"""
