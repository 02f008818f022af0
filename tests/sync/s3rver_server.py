"""s3rver (npm): a second, independent S3 server for the sync tests, on 127.0.0.1 with a
port the OS picks and its objects in a directory of files. Its bucket listings answer in
the XML namespace ``http://doc.s3.amazonaws.com/2006-03-01/`` (not AWS's), the server
that once made sync a silent no-op.

s3rver 3.7.1 checks that a request's access key id is one it knows (``S3RVER``) but does
not verify Signature Version 4 signatures ("Signature version 4 calculation is
unimplemented" in its lib/middleware/authentication.js): a wrong secret is accepted.

``packaging/dev.py test`` installs it under ``build/test-servers`` (npm); tests using it
skip, saying so, where Node.js or the package is missing."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.tools.mcp_reference import PREFIX

KEY_ID = SECRET = "S3RVER"  # the one account s3rver knows
S3RVER = PREFIX / "node_modules" / "s3rver" / "bin" / "s3rver.js"
NODE = shutil.which("node")

needs_s3rver = pytest.mark.skipif(
    NODE is None or not S3RVER.exists(),
    reason="s3rver is not installed: it needs Node.js and npm "
    "(packaging/dev.py test installs it under build/test-servers)",
)

_LISTENING = re.compile(r"S3rver listening on 127\.0\.0\.1:(\d+)")


class S3rver:
    def __init__(self, root: Path, bucket: str = "chats") -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root, self.bucket = root, bucket
        assert NODE is not None
        self._process = subprocess.Popen(
            [NODE, str(S3RVER), "--directory", str(root), "--address", "127.0.0.1",
             "--port", "0", "--silent", "--no-vhost-buckets"],
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
            raise RuntimeError("s3rver did not start:\n" + "".join(lines))
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
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(10)
