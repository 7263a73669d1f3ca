import { KNOWN_ITEM_TYPES, OTHER_ITEM_TYPE } from '../classify-envelope';

const knownTypes = [...KNOWN_ITEM_TYPES, OTHER_ITEM_TYPE].map((type) => `'${type}'`).join(', ');

/**
 * The inbox database's schema, as versioned migrations: entry N takes PRAGMA user_version from
 * N to N + 1. Never edit a released entry; append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE issues (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    culprit TEXT NOT NULL,
    level TEXT NOT NULL,
    platform TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('unresolved', 'resolved', 'ignored')),
    -- Seen again after it was resolved; cleared when it is resolved or ignored again.
    regressed INTEGER NOT NULL DEFAULT 0,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    event_count INTEGER NOT NULL,
    first_release TEXT NOT NULL,
    last_release TEXT NOT NULL,
    grouping_config TEXT NOT NULL
  );
  CREATE INDEX issues_last_seen ON issues (last_seen DESC, id DESC);
  CREATE INDEX issues_first_seen ON issues (first_seen DESC, id DESC);
  CREATE INDEX issues_count ON issues (event_count DESC, last_seen DESC, id DESC);
  CREATE INDEX issues_status ON issues (status, last_seen DESC);

  -- Every grouping hash an issue's events had: an event joins the issue owning any of its own.
  CREATE TABLE issue_hashes (
    hash TEXT PRIMARY KEY,
    issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE
  ) WITHOUT ROWID;
  CREATE INDEX issue_hashes_issue ON issue_hashes (issue_id);

  CREATE TABLE issue_hours (
    issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    hour INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (issue_id, hour)
  ) WITHOUT ROWID;

  CREATE TABLE issue_environments (
    issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    environment TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (issue_id, environment)
  ) WITHOUT ROWID;
  CREATE INDEX issue_environments_value ON issue_environments (environment);

  CREATE TABLE issue_releases (
    issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    release TEXT NOT NULL,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (issue_id, release)
  ) WITHOUT ROWID;
  CREATE INDEX issue_releases_value ON issue_releases (release);

  CREATE TABLE issue_tags (
    issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (issue_id, key, value)
  ) WITHOUT ROWID;

  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE,
    issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    received_at INTEGER NOT NULL,
    timestamp INTEGER NOT NULL,
    environment TEXT NOT NULL,
    release TEXT NOT NULL,
    url TEXT NOT NULL,
    payload TEXT NOT NULL
  );
  CREATE INDEX events_issue ON events (issue_id, received_at, id);

  CREATE TABLE release_health (
    release TEXT NOT NULL,
    environment TEXT NOT NULL,
    sessions INTEGER NOT NULL DEFAULT 0,
    crashed INTEGER NOT NULL DEFAULT 0,
    errored INTEGER NOT NULL DEFAULT 0,
    abnormal INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (release, environment)
  ) WITHOUT ROWID;

  -- A session's error or crash, counted once however many updates repeat it.
  CREATE TABLE session_outcomes (
    session_id TEXT NOT NULL,
    outcome TEXT NOT NULL,
    -- Sessions end within a day (the SDK's own bound); older rows are pruned.
    seen_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, outcome)
  ) WITHOUT ROWID;
  CREATE INDEX session_outcomes_seen ON session_outcomes (seen_at);

  CREATE TABLE item_counts (
    type TEXT PRIMARY KEY,
    count INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 2: search reads the issues' page tags by value, not every stored event's URL.
  `
  CREATE INDEX issue_tags_key_value ON issue_tags (key, value);
  `,
  // 3: signed-in inbox sessions, in the database so that every worker knows them (decision
  // 0314). Keyed by the id's SHA-256, never the id.
  `
  CREATE TABLE inbox_sessions (
    digest TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
  );
  CREATE INDEX inbox_sessions_last_seen ON inbox_sessions (last_seen_at);
  `,
  // 4: bounded by what is stored (issue 32, decision 1000). Unknown item types fold into one
  // "other" row; the clear runs as a job in batches (its progress here, for every worker's
  // page); session outcomes are counted by triggers, so bounding them costs no scan. Search
  // reads an issue's page URLs from a table of their own: an index on issue_tags (any, and a
  // partial one worse) made every tag's upsert several times slower, and a flood of tagged
  // issues is what the store must take at the cap.
  `
  DROP INDEX issue_tags_key_value;
  CREATE TABLE issue_urls (
    issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    PRIMARY KEY (issue_id, url)
  ) WITHOUT ROWID;
  INSERT INTO issue_urls (issue_id, url) SELECT issue_id, value FROM issue_tags WHERE key = 'url';

  INSERT INTO item_counts (type, count)
    SELECT '${OTHER_ITEM_TYPE}', sum(count) FROM item_counts WHERE type NOT IN (${knownTypes})
    HAVING count(*) > 0
    ON CONFLICT (type) DO UPDATE SET count = count + excluded.count;
  DELETE FROM item_counts WHERE type NOT IN (${knownTypes});

  CREATE TABLE inbox_clear (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    -- Issues with an id up to this one are deleted: those there were when it was asked for.
    up_to INTEGER NOT NULL,
    total INTEGER NOT NULL,
    deleted INTEGER NOT NULL,
    requested_at INTEGER NOT NULL,
    finished_at INTEGER
  );

  CREATE TABLE row_counts (
    name TEXT PRIMARY KEY,
    n INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO row_counts (name, n) SELECT 'session_outcomes', count(*) FROM session_outcomes;
  CREATE TRIGGER session_outcomes_added AFTER INSERT ON session_outcomes BEGIN
    UPDATE row_counts SET n = n + 1 WHERE name = 'session_outcomes';
  END;
  CREATE TRIGGER session_outcomes_removed AFTER DELETE ON session_outcomes BEGIN
    UPDATE row_counts SET n = n - 1 WHERE name = 'session_outcomes';
  END;
  `,
  // 5: the event cap's eviction costs what it frees, not what is stored (issue 32, decision
  // 1002). The events are counted by triggers, and each event says whether it is its issue's
  // first or latest (by id, as the eviction always judged), so the oldest events to evict are
  // read from the front of a partial index instead of grouping the whole table. Events are only
  // appended (SQLite gives each the highest id yet), so a new event is its issue's latest.
  `
  ALTER TABLE events ADD COLUMN is_first INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE events ADD COLUMN is_latest INTEGER NOT NULL DEFAULT 1;
  -- An issue's events by id: its ends, found in one step when one of them goes.
  CREATE INDEX events_issue_id ON events (issue_id, id);
  UPDATE events SET is_first = 1 WHERE id IN (SELECT min(id) FROM events GROUP BY issue_id);
  UPDATE events SET is_latest = 0 WHERE id NOT IN (SELECT max(id) FROM events GROUP BY issue_id);
  CREATE INDEX events_middle ON events (id) WHERE is_first = 0 AND is_latest = 0;
  CREATE INDEX events_not_latest ON events (id) WHERE is_latest = 0;

  INSERT INTO row_counts (name, n) SELECT 'events', count(*) FROM events;
  CREATE TRIGGER events_added AFTER INSERT ON events BEGIN
    UPDATE row_counts SET n = n + 1 WHERE name = 'events';
    UPDATE events SET is_latest = 0
      WHERE id = (SELECT max(id) FROM events WHERE issue_id = NEW.issue_id AND id < NEW.id);
    UPDATE events SET is_first = 1
      WHERE id = NEW.id
        AND NOT EXISTS (SELECT 1 FROM events WHERE issue_id = NEW.issue_id AND id < NEW.id);
  END;
  CREATE TRIGGER events_removed AFTER DELETE ON events BEGIN
    UPDATE row_counts SET n = n - 1 WHERE name = 'events';
  END;
  CREATE TRIGGER events_first_removed AFTER DELETE ON events WHEN OLD.is_first = 1 BEGIN
    UPDATE events SET is_first = 1
      WHERE id = (SELECT min(id) FROM events WHERE issue_id = OLD.issue_id);
  END;
  CREATE TRIGGER events_latest_removed AFTER DELETE ON events WHEN OLD.is_latest = 1 BEGIN
    UPDATE events SET is_latest = 1
      WHERE id = (SELECT max(id) FROM events WHERE issue_id = OLD.issue_id);
  END;
  `,
  // 6: sessions with an unhandled error, counted apart as Sentry's release health does (issue 33).
  `
  ALTER TABLE release_health ADD COLUMN unhandled INTEGER NOT NULL DEFAULT 0;
  `,
  // 7: who was hit (issue 33, decision 1121). An issue's distinct users by Sentry's
  // \`sentry:user\` key (\`id:…\`, \`username:…\`, \`email:…\`, \`ip:…\`), at most a cap of them an issue;
  // the issue counts them, and notes that more came past the cap, so the pages read one row.
  // Search finds an issue's users by key through the second index. Counted from this version on.
  `
  CREATE TABLE issue_users (
    issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    user_key TEXT NOT NULL,
    PRIMARY KEY (issue_id, user_key)
  ) WITHOUT ROWID;
  CREATE INDEX issue_users_key ON issue_users (user_key, issue_id);
  ALTER TABLE issues ADD COLUMN user_count INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE issues ADD COLUMN users_past_cap INTEGER NOT NULL DEFAULT 0;
  `,
  // 8: search with Sentry's syntax (issue 33, decision 1100). A digest finds its events exactly
  // (every stored event's, not the first values an issue keeps of its tags), through a partial
  // index on a column of the event, so it goes with the event. Free text reads trigram indexes
  // (FTS5) over the title, culprit and message (its content the issues table itself: a
  // change writes the old text's removal without reading the index, several times cheaper than
  // a contentless table's delete), and over its page URLs (contentless, rewritten only when an
  // issue has a new page), each row keyed by the id. Tag keys ever seen (capped) tell a
  // typo from a tag no issue has.
  `
  ALTER TABLE events ADD COLUMN digest TEXT;
  CREATE INDEX events_digest ON events (digest, issue_id) WHERE digest IS NOT NULL;
  UPDATE events SET digest = coalesce(
    CASE WHEN json_type(payload, '$.tags.digest') = 'text' THEN json_extract(payload, '$.tags.digest') END,
    CASE WHEN json_type(payload, '$.tags') = 'array' THEN (
      SELECT json_extract(value, '$[1]') FROM json_each(payload, '$.tags')
      WHERE json_extract(value, '$[0]') = 'digest') END)
  WHERE json_valid(payload);

  ALTER TABLE issues ADD COLUMN message TEXT NOT NULL DEFAULT '';
  CREATE INDEX issues_regressed ON issues (last_seen DESC, id DESC) WHERE regressed = 1;

  CREATE VIRTUAL TABLE issue_text USING fts5(
    title, culprit, message, content='issues', content_rowid='id', tokenize='trigram');
  CREATE VIRTUAL TABLE issue_url_text USING fts5(
    urls, content='', contentless_delete=1, tokenize='trigram');
  INSERT INTO issue_text (issue_text) VALUES ('rebuild');
  INSERT INTO issue_url_text (rowid, urls)
    SELECT issue_id, group_concat(url, ' ') FROM issue_urls GROUP BY issue_id;
  CREATE TRIGGER issue_text_added AFTER INSERT ON issues BEGIN
    INSERT INTO issue_text (rowid, title, culprit, message)
      VALUES (NEW.id, NEW.title, NEW.culprit, NEW.message);
  END;
  -- Most events leave the text as it was: only a change is indexed again.
  CREATE TRIGGER issue_text_changed AFTER UPDATE OF title, culprit, message ON issues
    WHEN OLD.title IS NOT NEW.title OR OLD.culprit IS NOT NEW.culprit OR OLD.message IS NOT NEW.message
  BEGIN
    INSERT INTO issue_text (issue_text, rowid, title, culprit, message)
      VALUES ('delete', OLD.id, OLD.title, OLD.culprit, OLD.message);
    INSERT INTO issue_text (rowid, title, culprit, message)
      VALUES (NEW.id, NEW.title, NEW.culprit, NEW.message);
  END;
  CREATE TRIGGER issue_text_removed AFTER DELETE ON issues BEGIN
    INSERT INTO issue_text (issue_text, rowid, title, culprit, message)
      VALUES ('delete', OLD.id, OLD.title, OLD.culprit, OLD.message);
    DELETE FROM issue_url_text WHERE rowid = OLD.id;
  END;
  -- A new page of the issue (each issue keeps at most its first 100): its pages indexed again.
  CREATE TRIGGER issue_url_text_added AFTER INSERT ON issue_urls BEGIN
    INSERT OR REPLACE INTO issue_url_text (rowid, urls)
      SELECT NEW.issue_id, group_concat(url, ' ') FROM issue_urls WHERE issue_id = NEW.issue_id;
  END;

  CREATE TABLE tag_keys (key TEXT PRIMARY KEY) WITHOUT ROWID;
  INSERT INTO row_counts (name, n) VALUES ('tag_keys', 0);
  CREATE TRIGGER tag_keys_added AFTER INSERT ON tag_keys BEGIN
    UPDATE row_counts SET n = n + 1 WHERE name = 'tag_keys';
  END;
  CREATE TRIGGER tag_keys_removed AFTER DELETE ON tag_keys BEGIN
    UPDATE row_counts SET n = n - 1 WHERE name = 'tag_keys';
  END;
  INSERT INTO tag_keys (key) SELECT DISTINCT key FROM issue_tags LIMIT 1000;
  `,
  // 9: triage as the peers do (issue 34, decisions 1220–1222). An ignored issue's mute: until a
  // time, or until its event or user count reaches a target (mute_count more than at the
  // mute, for "37 so far"); none is "forever". An issue resolved in the next release keeps the
  // release it was resolved after and when. A deleted issue is marked at once (its hashes go
  // with the mark, so its fingerprint makes a new issue) and deleted in batches on the ingest
  // thread, found by the partial index.
  `
  ALTER TABLE issues ADD COLUMN mute_kind TEXT CHECK (mute_kind IN ('time', 'events', 'users'));
  ALTER TABLE issues ADD COLUMN mute_target INTEGER;
  ALTER TABLE issues ADD COLUMN mute_count INTEGER;
  ALTER TABLE issues ADD COLUMN resolved_after_release TEXT;
  ALTER TABLE issues ADD COLUMN resolved_at INTEGER;
  ALTER TABLE issues ADD COLUMN deleted_at INTEGER;
  CREATE INDEX issues_deleted ON issues (id) WHERE deleted_at IS NOT NULL;
  `,
  // 10: alerts (issue 34, decisions 1200–1202). An alert per trigger (its body the JSON the
  // channels get; a summary's rewritten while it gathers, until due_at), a delivery row per alert
  // and channel (claimed with a lease by one sender at a time), and a spike counter per issue.
  // An issue's alerts go with it (a clear, an eviction); a summary stands for many, so has none.
  `
  CREATE TABLE alerts (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('new', 'regressed', 'spike', 'test', 'summary')),
    issue_id INTEGER REFERENCES issues (id) ON DELETE CASCADE,
    raised_at INTEGER NOT NULL,
    due_at INTEGER NOT NULL,
    body TEXT NOT NULL,
    -- Sent on its own, so it counts toward the flood limit.
    alone INTEGER NOT NULL
  );
  CREATE INDEX alerts_issue ON alerts (issue_id, id);
  CREATE INDEX alerts_alone ON alerts (raised_at) WHERE alone = 1;
  CREATE INDEX alerts_summary ON alerts (due_at) WHERE kind = 'summary';
  CREATE INDEX alerts_raised ON alerts (raised_at);

  CREATE TABLE alert_deliveries (
    id INTEGER PRIMARY KEY,
    alert_id INTEGER NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    channel TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    not_before INTEGER NOT NULL,
    -- A sender's lease: 0, or until when the row is that sender's to settle.
    claimed_until INTEGER NOT NULL DEFAULT 0,
    last_attempt_at INTEGER,
    reason TEXT,
    done_at INTEGER
  );
  CREATE INDEX alert_deliveries_alert ON alert_deliveries (alert_id);
  CREATE INDEX alert_deliveries_due ON alert_deliveries (not_before) WHERE state = 'pending';
  CREATE INDEX alert_deliveries_channel ON alert_deliveries (channel, last_attempt_at)
    WHERE last_attempt_at IS NOT NULL;

  CREATE TABLE alert_spikes (
    issue_id INTEGER PRIMARY KEY REFERENCES issues (id) ON DELETE CASCADE,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    alerted INTEGER NOT NULL
  );
  `,
  // An issue's id is never given twice. SQLite gives a new row the highest id there is plus
  // one, so once the newest issue was gone (the inbox cleared, the store's cap, a delete) its id
  // went to the next new issue, and every link, alert and API answer naming the old one named
  // the new one. AUTOINCREMENT would need the table rebuilt under its foreign keys; a floor
  // that only rises does the same (decision 0315).
  `
  CREATE TABLE issue_ids (
    only INTEGER PRIMARY KEY CHECK (only = 1),
    next INTEGER NOT NULL
  );
  INSERT INTO issue_ids (only, next) SELECT 1, coalesce(max(id), 0) + 1 FROM issues;
  CREATE TRIGGER issue_ids_taken AFTER INSERT ON issues BEGIN
    UPDATE issue_ids SET next = max(next, NEW.id + 1);
  END;
  `,
];
