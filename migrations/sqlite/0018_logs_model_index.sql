-- The console filters models with LIKE '%name%', which no index on model_name can serve; every
-- usage row paid for keeping this one up to date. (PostgreSQL dropped it in its 0016.)
DROP INDEX idx_logs_model;
