"""Model profiles in ``profiles.toml`` in the config folder; ``local`` is always there.

The file never holds a secret: no key, and no password in a base URL (``keys.store_profile``
moves one to the keyring before saving; a profile that still carries one is refused here).
"""

from __future__ import annotations

from pathlib import Path

from desktop.adapters.config import config_dir, read_toml, write_toml
from desktop.domain.base_urls import split_password
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import LOCAL_PROFILE, ModelProfile, local_profile


def profiles_path() -> Path:
    return config_dir() / "profiles.toml"


def load_profiles() -> dict[str, ModelProfile]:
    data = read_toml(profiles_path()).get("profiles", {})
    profiles = {LOCAL_PROFILE: local_profile()}
    for name, values in data.items():
        if not isinstance(values, dict):
            raise TiebreakError(f"{profiles_path()}: [profiles.{name}] must be a table")
        if name == LOCAL_PROFILE:  # the user may tune the local profile, not replace it
            profiles[name] = local_profile().with_changes(**values)
        else:
            profiles[name] = ModelProfile.from_dict(name, values)
    return profiles


def get_profile(name: str) -> ModelProfile:
    profiles = load_profiles()
    if name not in profiles:
        raise TiebreakError(f"no model profile {name!r} (profiles: {', '.join(profiles)})")
    return profiles[name]


def save_profile(profile: ModelProfile) -> None:
    path = profiles_path()
    if profile.base_url and split_password(profile.base_url)[1] is not None:
        raise TiebreakError(
            f"profile {profile.name}: the password in its base URL belongs in the keyring,"
            f" never in {path}"
        )
    data = read_toml(path)
    section = data.setdefault("profiles", {})
    if profile.name == LOCAL_PROFILE:
        base = local_profile().to_dict()
        section[profile.name] = {k: v for k, v in profile.to_dict().items() if base.get(k) != v}
    else:
        section[profile.name] = profile.to_dict()
    write_toml(path, data)
