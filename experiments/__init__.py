"""cuegym.experiments: the scripts behind the ``cuegym`` command (train, evaluate, selfplay,
replay, bench_*) and the reproducible research scripts. Each has a ``main(argv)``; run them as
``cuegym <command>`` from anywhere, or as ``python experiments/<script>.py`` in a checkout.
"""
