"""An S3-compatible target (AWS S3, MinIO, Cloudflare R2, Backblaze B2, ...).

A PUT object appears whole or not at all, so files are written directly. Requests
are signed with AWS Signature Version 4 (``httpx-auth``). Listings are read by the
elements' local names: servers differ in the XML namespace they answer with (AWS's
``http://s3.amazonaws.com/doc/2006-03-01/``; s3rver and local-s3-server use
``http://doc.s3.amazonaws.com/2006-03-01/``; some none at all).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote, urlsplit

from httpx_auth import AWS4Auth

from desktop.sync.config import S3_SECRET_ID
from desktop.sync.errors import SyncError
from desktop.sync.targets.base import LISTING_LIMIT, Entry, TargetFacts
from desktop.sync.targets.http_files import new_client, request
from desktop.sync.targets.xml_names import child_text, children, local_name

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy
    from desktop.sync.config import SyncConfig


MAX_LISTED = 10_000_000  # names in one folder (compaction keeps a device's to about 100)


class S3Target(TargetFacts):
    url_form = "s3://bucket/prefix"
    secret_id = S3_SECRET_ID
    fields = frozenset({"user", "secret", "endpoint", "region"})
    required = frozenset({"user", "secret"})
    user_label = "access_key_id"
    secret_label = "secret_access_key"

    @classmethod
    def from_url(cls, url: str, environ: Mapping[str, str], *, password: str | None = None,
                 proxy: Proxy | None = None) -> S3Target:
        """The keys, region and endpoint: the standard AWS variables in ``environ``."""
        parts = urlsplit(url.strip())
        if not parts.netloc:
            raise SyncError(f"The S3 URL {url} has no bucket: s3://bucket/prefix.",
                            code="sync_s3_no_bucket", params={"url": url})
        return cls(parts.netloc, unquote(parts.path), environ, proxy)

    @classmethod
    def from_settings(cls, config: SyncConfig, secret: str | None,
                      proxy: Proxy | None = None) -> S3Target:
        environ = {"AWS_ACCESS_KEY_ID": config.user.strip(),
                   "AWS_SECRET_ACCESS_KEY": secret or ""}
        if config.region.strip():
            environ["AWS_REGION"] = config.region.strip()
        if config.endpoint.strip():
            environ["AWS_ENDPOINT_URL"] = config.endpoint.strip()
        return cls.from_url(config.url, environ, proxy=proxy)

    def __init__(self, bucket: str, prefix: str, environ: Mapping[str, str],
                 proxy: Proxy | None = None) -> None:
        key_id = environ.get("AWS_ACCESS_KEY_ID", "")
        secret = environ.get("AWS_SECRET_ACCESS_KEY", "")
        if not key_id or not secret:
            raise SyncError(
                "S3 sync needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to be set.",
                code="sync_s3_credentials"
            )
        region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        endpoint = environ.get("AWS_ENDPOINT_URL_S3") or environ.get("AWS_ENDPOINT_URL")
        if endpoint:  # MinIO, R2, B2, ...: path-style addressing works everywhere
            # Listings go to the bucket's path without a trailing slash, as the AWS SDKs
            # send them: a server that signs the bucket's name (not the path it got)
            # refuses ``/bucket/`` with 403 SignatureDoesNotMatch.
            self._bucket = f"{endpoint.rstrip('/')}/{bucket}"
            self._base = f"{self._bucket}/"
        else:
            self._base = self._bucket = f"https://{bucket}.s3.{region}.amazonaws.com/"
        self._prefix = f"{prefix.strip('/')}/" if prefix.strip("/") else ""
        self.description = f"s3://{bucket}/{self._prefix}"
        auth = AWS4Auth(
            key_id, secret, region, "s3", security_token=environ.get("AWS_SESSION_TOKEN")
        )
        self._client = new_client(auth, proxy)

    def _url(self, path: str) -> str:
        return self._base + quote(self._prefix + path)

    def read(self, path: str, limit: int) -> bytes | None:
        reply = request(
            self._client, self.description, "GET", self._url(path), f"reading {path}",
            ok=(200, 404), limit=limit,
        )
        return None if reply.status == 404 else reply.body

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
        if head.status == 200:
            return False
        # Conditional write: of two devices setting up the target at once, one wins.
        reply = request(
            self._client, self.description, "PUT", self._url(path), f"uploading {path}",
            ok=(200, 409, 412), content=data, headers={"If-None-Match": "*"},
        )
        return reply.status == 200

    def entries(self, directory: str) -> list[Entry]:
        inner = directory.strip("/")
        prefix = self._prefix + (f"{inner}/" if inner else "")
        found: list[Entry] = []
        token: str | None = None
        tokens: set[str] = set()
        while True:
            params = {"list-type": "2", "prefix": prefix, "delimiter": "/"}
            if token:
                params["continuation-token"] = token
            reply = request(
                self._client, self.description, "GET", self._bucket, f"listing {directory}",
                ok=(200,), params=params, limit=LISTING_LIMIT,
            )
            root = self._parse(reply.body)
            for item in children(root, "Contents"):
                size = child_text(item, "Size") or ""
                found.append(Entry((child_text(item, "Key") or "")[len(prefix):],
                                   int(size) if size.isdigit() else None,
                                   _timestamp(child_text(item, "LastModified"))))
            for common in children(root, "CommonPrefixes"):
                sub = child_text(common, "Prefix") or ""
                found.append(Entry(sub[len(prefix):].rstrip("/")))
            token = child_text(root, "NextContinuationToken")
            if child_text(root, "IsTruncated") != "true" or not token:
                return sorted((e for e in found if e.name), key=lambda e: e.name)
            if token in tokens or len(found) > MAX_LISTED:
                raise SyncError(
                    f"Sync target {self.description} sent a listing of {directory} that "
                    "never ends; stopped reading it. Nothing was changed here.",
                    code="sync_bad_listing",
                    params={"target": self.description, "detail": f"{directory}: it never ends"}
                )
            tokens.add(token)

    def _parse(self, body: bytes) -> ET.Element:
        try:
            root = ET.fromstring(body)
        except ET.ParseError as exc:
            raise SyncError(
                f"Sync target {self.description} sent an unreadable listing ({exc}).",
                code="sync_bad_listing", params={"target": self.description, "detail": str(exc)}
            ) from exc
        if local_name(root.tag) != "ListBucketResult":
            raise SyncError(
                f"Sync target {self.description} answered a listing with "
                f"<{local_name(root.tag)}> instead of a list of files.",
                code="sync_bad_listing",
                params={"target": self.description, "detail": f"<{local_name(root.tag)}>"}
            )
        return root

    def list(self, directory: str) -> list[str]:
        return [entry.name for entry in self.entries(directory)]

    def delete(self, path: str) -> None:
        request(
            self._client, self.description, "DELETE", self._url(path), f"deleting {path}",
            ok=(200, 204, 404),
        )

    def close(self) -> None:
        self._client.close()


def _timestamp(text: str | None) -> float | None:
    """``2026-11-27T13:29:48.000Z`` in epoch seconds."""
    try:
        return datetime.fromisoformat((text or "").strip()).timestamp() if text else None
    except ValueError:
        return None
