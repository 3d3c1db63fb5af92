"""The real-world model generator's model families (see make_realworld.py)."""
