"""Play and watch the games in a browser, with the standard library only.

`svg` draws any TableView (what one seat sees) as SVG: the pages, notebooks (`TableView._repr_svg_`) and
replays all use it. `session` holds a game a person plays against agents and tells the page only what the
person's seat sees; `server` serves it on 127.0.0.1 (`python -m quando_env serve`); `replay_page` turns a
game record into one self-contained page (`python -m quando_env replay FILE --html OUT`). The pages in
`static/` are plain HTML and JavaScript: nothing to build.
"""
