"""``python -m cuegym.play``: start the local web app and print its URL.

    python -m cuegym.play                      # http://127.0.0.1:8765/
    python -m cuegym.play --port 9000 --save-dir runs/play --records runs/eval

Needs the ``web`` extra (``pip install -e ".[web]"``: fastapi, uvicorn).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading

from cuegym.cli_errors import prog_name

#: What --help says the command does: plain text (the module's doc is reST, whose ``markup``
#: --help would show as it is).
DESCRIPTION = ("Start the local web app (play keglebillard and golfbillard against the agents, "
               "watch agents play, replay saved games) and print its URL.")


def allowed_hosts(host: str, extra: list[str] | None) -> tuple[str, ...]:
    """The host names the server answers: this machine's, the bound address and ``extra``;
    any name (``"*"``) for an all-interfaces bind without ``extra`` (the page is then opened
    by whatever address the other machines know this one by)."""
    from cuegym.play.server import LOCAL_HOSTS

    if host in ("0.0.0.0", "::", "") and not extra:
        return ("*",)
    return (*LOCAL_HOSTS, host, *(extra or ()))


def url_of(host: str, port: int) -> str:
    """The page's URL for a socket bound to ``host``: an all-interfaces bind is opened on this
    machine's loopback; an IPv6 address goes in brackets (RFC 3986: "http://[::1]:8765/", its
    zone's "%" written "%25")."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host.replace('%', '%25')}]"
    return f"http://{host}:{port}/"


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: the command line), start the server, block until stopped."""
    p = argparse.ArgumentParser(prog=prog_name("python -m cuegym.play"),
                                description=DESCRIPTION)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: a free one)")
    p.add_argument("--save-dir", default="runs/play",
                   help="where every game is saved as JSON (default runs/play)")
    p.add_argument("--records", action="append", default=None,
                   help="a folder of saved games to list for replay, besides --save-dir "
                        "(repeatable; given, it replaces the default runs/eval, where "
                        "evaluate.py --save-games writes: name runs/eval too to keep it; it "
                        "must exist)")
    p.add_argument("--allowed-host", action="append", default=None, metavar="NAME",
                   help="a host name the page may be opened by besides localhost, 127.0.0.1 "
                        "and the --host address (repeatable); requests to other names are "
                        "refused (DNS rebinding). With --host 0.0.0.0 and none given, any name")
    p.add_argument("--no-warmup", action="store_true",
                   help="do not load the shipped agents and compile the physics at start")
    args = p.parse_args(argv)
    if not 0 <= args.port <= 65535:
        p.error(f"--port must be 0..65535, got {args.port}")
    if os.path.exists(args.save_dir) and not os.path.isdir(args.save_dir):
        p.error(f"--save-dir {args.save_dir!r} is a file, not a folder for the game records")
    for folder in args.records or ():  # given, so meant: a typo would list nothing, silently
        if not os.path.isdir(folder):
            p.error(f"--records {folder!r} is not a folder of saved games"
                    + (" (it is a file)" if os.path.exists(folder) else " (no such folder)"))
    try:  # before uvicorn, whose error for it is a log line with another exit status
        socket.getaddrinfo(args.host or None, args.port)
    except (OSError, UnicodeError) as e:
        p.error(f"--host {args.host!r} is not an address this machine can bind: {e}")
    try:
        import uvicorn

        from cuegym.play.server import create_app, warm_up
    except ImportError as e:
        print(f"error: this needs the package {e.name!r}, which is not installed (pip install "
              f"'cuegym[web]', or pip install -e '.[web]' in a checkout)", file=sys.stderr)
        return 2
    app = create_app(args.save_dir, [args.save_dir, *(args.records or ["runs/eval"])],
                     allowed_hosts(args.host, args.allowed_host))
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)
    if not args.no_warmup:
        threading.Thread(target=warm_up, daemon=True).start()

    def announce() -> None:
        import time

        while not server.started:
            time.sleep(0.05)
        for s in server.servers:
            for sock in s.sockets:
                print(f"cuegym play: {url_of(*sock.getsockname()[:2])}  (Ctrl-C stops)",
                      flush=True)
                return

    threading.Thread(target=announce, daemon=True).start()
    server.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
