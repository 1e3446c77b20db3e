import os
import sys

# tests/ holds the plain-Python reference implementation, imported by name.
sys.path.insert(0, os.path.dirname(__file__))
