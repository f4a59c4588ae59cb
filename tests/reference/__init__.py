"""Test oracles: earlier implementations kept only to check the product against them."""
