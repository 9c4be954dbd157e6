import type { StoredFeed } from "../domain/feed";
import type { SettingsRepository } from "./settings-repository";

/** Stored feeds (System Settings → Feeds); the SFTP password arrives hashed. */
export type FeedRepository = SettingsRepository<StoredFeed>;
