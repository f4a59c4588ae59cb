"""Test oracles: the Python golfbillard referee that the compiled one replaced (read-only
reference for tests/golf_differential.py; not part of the product)."""
