"""Settings, read from the environment (and an optional ``.env`` file)."""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    host: str = Field("127.0.0.1", validation_alias="HOST")
    port: int = Field(8000, validation_alias="PORT")
    database_url: str = Field("sqlite:///./data/bourse.db", validation_alias="BOURSE_DATABASE_URL")
    bot_delay: float = Field(1.0, validation_alias="BOURSE_BOT_DELAY", ge=0)
    bot_window_delay: float = Field(6.0, validation_alias="BOURSE_BOT_WINDOW_DELAY", ge=0)
    secure_cookies: bool = Field(False, validation_alias="BOURSE_SECURE_COOKIES")
    public_url: str = Field("", validation_alias="BOURSE_PUBLIC_URL")
    forwarded_allow_ips: str = Field("127.0.0.1", validation_alias="FORWARDED_ALLOW_IPS")


@lru_cache
def get_settings() -> Settings:
    return Settings()
