"""`bgscribe adduser`: create a review-page account (the first director is made this way)."""

from __future__ import annotations

import getpass
import os
import sys


def adduser(args) -> int:
    from .auth import AuthError, create_user
    from .cli import _settings
    from .db import Database

    try:
        settings = _settings(args)
    except (FileNotFoundError, ValueError) as e:
        print(f"bgscribe adduser: {e}", file=sys.stderr)
        return 2
    password = os.environ.get("BGSCRIBE_PASSWORD")
    if not password:
        password = getpass.getpass(f"password for {args.username}: ")
        if getpass.getpass("again: ") != password:
            print("bgscribe adduser: the passwords differ", file=sys.stderr)
            return 2
    db = Database(settings.db_url)
    try:
        with db.session() as s:
            create_user(s, args.username, password, args.role, by="bgscribe adduser")
            s.commit()
    except AuthError as e:
        print(f"bgscribe adduser: {e}", file=sys.stderr)
        return 2
    finally:
        db.dispose()
    print(f"created {args.role} {args.username}")
    return 0
