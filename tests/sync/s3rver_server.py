"""s3rver (npm) and its fork @20minutes/s3rver: S3 servers for the sync tests that nobody
here wrote, on 127.0.0.1 with a port the OS picks and their objects in a directory of
files. Their bucket listings answer in the XML namespace
``http://doc.s3.amazonaws.com/2006-03-01/`` (not AWS's), the server that once made sync a
silent no-op.

- ``s3rver`` 3.7.1 checks that a request's access key id is one it knows (``S3RVER``)
  but does not verify Signature Version 4 signatures ("Signature version 4 calculation
  is unimplemented" in its lib/middleware/authentication.js): a wrong secret passes.
- ``@20minutes/s3rver`` 5.0.0 verifies SigV4 signatures (a wrong secret is refused
  with 403 SignatureDoesNotMatch), and signs the bucket's path without a trailing
  slash, as the AWS SDKs send it. Its package.json asks for Node 24 and ships no
  ``bin/`` script, but the library runs on Node 20: it is started through ``node -e``.

``packaging/dev.py test`` installs both under ``build/test-servers`` (npm); tests using
them skip, saying so, where Node.js or the package is missing."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import end_process
from tests.tools.mcp_reference import PREFIX

KEY_ID = SECRET = "S3RVER"  # the one account s3rver knows
NODE = shutil.which("node")
PACKAGES = ("s3rver", "@20minutes/s3rver")
#: Starts the package's S3rver class (argv: package folder, data folder).
LAUNCH = """
const S3rver = require(process.argv[1]);
new S3rver({address: '127.0.0.1', port: 0, directory: process.argv[2], silent: true,
            vhostBuckets: false}).run()
  .then(({address, port}) => console.log('S3rver listening on %s:%d', address, port))
  .catch(error => { console.error(error); process.exit(1); });
"""


def package_dir(package: str) -> Path:
    return PREFIX / "node_modules" / package


def skip_unless_installed(package: str) -> None:
    if NODE is None or not (package_dir(package) / "package.json").exists():
        pytest.skip(f"{package} is not installed: it needs Node.js and npm "
                    "(packaging/dev.py test installs it under build/test-servers)")

_LISTENING = re.compile(r"S3rver listening on 127\.0\.0\.1:(\d+)")


class S3rver:
    def __init__(self, root: Path, package: str = "s3rver", bucket: str = "chats") -> None:
        skip_unless_installed(package)
        root.mkdir(parents=True, exist_ok=True)
        self.root, self.bucket, self.package = root, bucket, package
        assert NODE is not None
        self._process = subprocess.Popen(
            [NODE, "-e", LAUNCH, str(package_dir(package)), str(root)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True,
        )
        assert self._process.stdout is not None
        lines: list[str] = []
        port = ""
        for line in self._process.stdout:  # blocks until s3rver says where it listens
            lines.append(line)
            found = _LISTENING.search(line)
            if found:
                port = found.group(1)
                break
        if not port:
            self._process.wait(10)
            raise RuntimeError(f"{package} did not start:\n" + "".join(lines))
        # Keep reading what it prints, so it never blocks on a full pipe.
        threading.Thread(target=self._process.stdout.read, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{port}"
        self.environ = {
            "AWS_ACCESS_KEY_ID": KEY_ID,
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": self.endpoint,
        }
        self.client().create_bucket(Bucket=bucket)

    def client(self) -> Any:
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=KEY_ID,
                            aws_secret_access_key=SECRET, region_name="us-east-1")

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/assista"

    def stored(self) -> dict[str, bytes]:
        """Every file s3rver keeps on disk (objects and their metadata)."""
        return {str(p.relative_to(self.root)): p.read_bytes()
                for p in self.root.rglob("*") if p.is_file()}

    def keys(self) -> list[str]:
        """The object keys, as the server lists them."""
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=self.bucket)
        return [item["Key"] for page in pages for item in page.get("Contents", [])]

    def wipe(self) -> None:
        """Empty the bucket through the server (the user reset the target)."""
        client = self.client()
        for key in self.keys():
            client.delete_object(Bucket=self.bucket, Key=key)

    def stop(self) -> None:
        end_process(self._process)
