"""Keyring backends for tests, so nothing ever touches or prompts a real keychain."""

from __future__ import annotations

import keyring.backend
import keyring.errors


class MemoryKeyring(keyring.backend.KeyringBackend):
    """Keeps passwords in a dict for the test's lifetime."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.passwords.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


class DroppingKeyring(MemoryKeyring):
    """A backend that accepts writes and keeps nothing, as some headless setups do."""

    def set_password(self, service: str, username: str, password: str) -> None:
        return None


class NoKeyring(keyring.backend.KeyringBackend):
    """What keyring's fail backend does on a machine without one."""

    priority = 0  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.NoKeyringError("No recommended backend was available.")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.NoKeyringError("No recommended backend was available.")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.NoKeyringError("No recommended backend was available.")
