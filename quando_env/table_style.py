"""A table's frame and colours, one set for both drawings of a TableView: pygame pictures (quando_env.picture)
and SVG (quando_env.svg)."""

FRAME_WIDTH, FRAME_HEIGHT = 960, 640
MARGIN, GAP = 10, 6
TOP, BOTTOM = 44, FRAME_HEIGHT - 58          # the seats and the table lie between the title and the status
SEATS_WIDTH = 610                            # the seats' column; the table (piles, row) is right of it
MAX_ZONE, MAX_CARD = 124, 88                 # heights

FELT, PANEL, PANEL_TO_MOVE = (22, 92, 56), (30, 112, 70), (44, 132, 84)
GOLD, WHITE, SOFT = (250, 204, 60), (246, 246, 240), (196, 224, 206)
CARD_FACE, CARD_EDGE, BACK, BACK_STRIPE, EMPTY = (252, 251, 245), (35, 35, 35), (46, 74, 150), (86, 114, 192), \
    (84, 156, 112)
INK_RGB = {"black": (25, 25, 25), "red": (196, 30, 36), "blue": (30, 64, 170), "green": (20, 120, 52),
           "purple": (118, 44, 150), "orange": (205, 105, 0)}
