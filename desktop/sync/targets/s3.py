"""An S3-compatible target (AWS S3, MinIO, Cloudflare R2, Backblaze B2, ...).

A PUT object appears whole or not at all, so files are written directly. Requests
are signed with AWS Signature Version 4 (``httpx-auth``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from urllib.parse import quote

from httpx_auth import AWS4Auth

from desktop.sync.errors import SyncError
from desktop.sync.targets.http_files import new_client, request

_NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"


class S3Target:
    def __init__(self, bucket: str, prefix: str, environ: Mapping[str, str]) -> None:
        key_id = environ.get("AWS_ACCESS_KEY_ID", "")
        secret = environ.get("AWS_SECRET_ACCESS_KEY", "")
        if not key_id or not secret:
            raise SyncError(
                "S3 sync needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to be set."
            )
        region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        endpoint = environ.get("AWS_ENDPOINT_URL_S3") or environ.get("AWS_ENDPOINT_URL")
        if endpoint:  # MinIO, R2, B2, ...: path-style addressing works everywhere
            self._base = f"{endpoint.rstrip('/')}/{bucket}/"
        else:
            self._base = f"https://{bucket}.s3.{region}.amazonaws.com/"
        self._prefix = f"{prefix.strip('/')}/" if prefix.strip("/") else ""
        self.description = f"s3://{bucket}/{self._prefix}"
        auth = AWS4Auth(
            key_id, secret, region, "s3", security_token=environ.get("AWS_SESSION_TOKEN")
        )
        self._client = new_client(auth)

    def _url(self, path: str) -> str:
        return self._base + quote(self._prefix + path)

    def read(self, path: str) -> bytes | None:
        response = request(
            self._client, self.description, "GET", self._url(path), f"reading {path}",
            ok=(200, 404),
        )
        return None if response.status_code == 404 else response.content

    def write(self, path: str, data: bytes) -> None:
        request(
            self._client, self.description, "PUT", self._url(path), f"uploading {path}",
            ok=(200,), content=data,
        )

    def create(self, path: str, data: bytes) -> bool:
        head = request(
            self._client, self.description, "HEAD", self._url(path), f"checking {path}",
            ok=(200, 404),
        )
        if head.status_code == 200:
            return False
        # Conditional write: of two devices setting up the target at once, one wins.
        response = request(
            self._client, self.description, "PUT", self._url(path), f"uploading {path}",
            ok=(200, 409, 412), content=data, headers={"If-None-Match": "*"},
        )
        return response.status_code == 200

    def list(self, directory: str) -> list[str]:
        prefix = self._prefix + directory.strip("/") + "/"
        names: list[str] = []
        token: str | None = None
        while True:
            params = {"list-type": "2", "prefix": prefix, "delimiter": "/"}
            if token:
                params["continuation-token"] = token
            response = request(
                self._client, self.description, "GET", self._base, f"listing {directory}",
                ok=(200,), params=params,
            )
            try:
                root = ET.fromstring(response.content)
            except ET.ParseError as exc:
                raise SyncError(
                    f"Sync target {self.description} sent an unreadable listing ({exc})."
                ) from exc
            for key in root.iter(f"{_NS}Key"):
                names.append((key.text or "")[len(prefix) :])
            for common in root.iter(f"{_NS}CommonPrefixes"):
                sub = common.findtext(f"{_NS}Prefix") or ""
                names.append(sub[len(prefix) :].rstrip("/"))
            token = root.findtext(f"{_NS}NextContinuationToken")
            if root.findtext(f"{_NS}IsTruncated") != "true" or not token:
                return sorted(n for n in names if n)

    def delete(self, path: str) -> None:
        request(
            self._client, self.description, "DELETE", self._url(path), f"deleting {path}",
            ok=(200, 204, 404),
        )

    def close(self) -> None:
        self._client.close()
