"""Server settings: environment variables (BGSCRIBE_*) over a TOML file over defaults.

```toml
# bgscribe.toml
data_dir = "/var/lib/bgscribe"
database_url = "sqlite:////var/lib/bgscribe/bgscribe.db"
# admin_token: leave it out and the server makes one on first start (kept in data_dir/admin-token)
purge_interval_seconds = 300
# broker_url = "redis://10.0.0.2:6379/0"   # jobs done by `bgscribe worker` processes (README: deployment)
```
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BGSCRIBE_", extra="ignore")

    data_dir: Path = Field(Path("bgscribe-data"), description="database, footage and upload staging live here")
    database_url: str = Field("", description="SQLAlchemy URL; default: SQLite in data_dir")
    footage_dir: Path | None = Field(None, description="local footage store (a folder, or a share that workers on "
                                                       "other machines mount too); default: data_dir/footage")
    storage: str = Field("local", description="footage store kind: 'local' (footage_dir) or 's3' (s3_* settings)")
    footage_store_id: str = Field("", description="the identity the footage folder must carry (its .bgscribe-store "
                                                  "file): a worker gives the server's, so an unmounted share is "
                                                  "refused; empty: the server's own, kept in data_dir")
    s3_endpoint_url: str = Field("", description="S3-compatible endpoint, e.g. http://10.0.0.5:9000 (empty: AWS)")
    s3_bucket: str = Field("", description="the bucket that holds the footage (it must exist)")
    s3_prefix: str = Field("", description="object names begin with this (several events or servers, one bucket)")
    s3_region: str = Field("", description="region (empty: AWS_DEFAULT_REGION / the AWS configuration)")
    s3_access_key_id: str = Field("", description="empty: AWS_ACCESS_KEY_ID or the AWS configuration")
    s3_secret_access_key: str = Field("", description="empty: AWS_SECRET_ACCESS_KEY or the AWS configuration")
    footage_cache_bytes: int = Field(16 << 30, description="most bytes of S3 footage copied into "
                                                           "data_dir/cache/footage for the pipeline to read")
    admin_token: str = Field("", description="bearer token for the staff API (16+ characters, not a placeholder); "
                                             "empty: one is made on first start and kept in data_dir/admin-token")
    purge_interval_seconds: float = Field(300.0, description="how often the server applies retention (0: never)")
    pipeline: bool = Field(True, description="observe and transcribe arriving footage in the background")
    pipeline_poll_seconds: float = Field(2.0, description="how often the pipeline looks for new work")
    pipeline_jobs: int = Field(0, ge=0, le=256, description="jobs the server does at a time when no job queue "
                               "sends them to workers (each a process on one core); 0: one per core")
    broker_url: str = Field("", description="job queue (Redis) that sends the pipeline's jobs to `bgscribe worker` "
                                            "processes, e.g. redis://10.0.0.2:6379/0; empty: the server does "
                                            "them itself, one at a time")
    broker_heartbeat_seconds: float = Field(60.0, gt=0, description="a worker silent this long is taken for dead "
                                                                    "and its job given to another")
    pr_ply: int = Field(2, ge=0, le=3, description="GNU Backgammon's analysis depth for the provisional PR of an "
                                                   "approved match (2: ~20 s an 11-point match; 0: ~1 s)")
    live_analysis_ply: int = Field(0, ge=-1, le=2, description="GNU Backgammon's depth for the live boards' "
                                   "last-play error and equity, shown after the play (0: ~8 ms a play; 2: ~0.1 s; "
                                   "-1: off); only where gnubg is installed")
    live_camera_threads: int = Field(1, ge=0, le=64, description="threads that observe the live frames of agents "
                                     "too small to observe their own camera (about 0.05 of a core a board at 5 "
                                     "frames a second of 720p); 0: such frames are refused")
    host: str = "127.0.0.1"
    port: int = 8000
    max_segment_bytes: int = Field(2 << 30, description="largest segment accepted")
    staging_max_age_hours: float = Field(48.0, description="unfinished uploads untouched this long are deleted")
    max_chunk_bytes: int = Field(8 << 20, description="largest piece of a segment one upload request may carry")
    tls_cert: Path | None = Field(None, description="PEM certificate (chain): serve HTTPS (with tls_key)")
    tls_key: Path | None = Field(None, description="PEM private key of tls_cert")
    trusted_proxies: str = Field("", description="addresses of reverse proxies whose X-Forwarded-For/-Proto "
                                                 "headers are believed (comma-separated; empty: none)")

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, **_others: PydanticBaseSettingsSource):
        # Precedence: explicit arguments, then BGSCRIBE_* environment variables, then the TOML file.
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls)

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{(self.data_dir / 'bgscribe.db').resolve()}"

    @property
    def footage_path(self) -> Path:
        return self.footage_dir or self.data_dir / "footage"

    @property
    def staging_path(self) -> Path:
        return self.data_dir / "staging"


def load_settings(config: str | Path | None = None, **overrides) -> Settings:
    """Settings from `config` (a TOML file; else $BGSCRIBE_CONFIG if set), the environment, and `overrides`."""
    path = config or os.environ.get("BGSCRIBE_CONFIG")
    cls: type[Settings] = Settings
    if path:
        if not Path(path).is_file():
            raise FileNotFoundError(f"config file {path} not found")
        cls = type("FileSettings", (Settings,), {"model_config": SettingsConfigDict(
            env_prefix="BGSCRIBE_", extra="ignore", toml_file=Path(path))})
    return cls(**{k: v for k, v in overrides.items() if v is not None})
