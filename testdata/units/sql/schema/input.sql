-- Schema of the demo shop.
CREATE SCHEMA IF NOT EXISTS shop;

-- People who buy things.
CREATE TABLE shop.users (
    id         BIGSERIAL PRIMARY KEY,
    "email"    TEXT NOT NULL UNIQUE, -- login
    created_at TIMESTAMPTZ DEFAULT now(),
    CONSTRAINT email_lower CHECK (email = lower(email))
);

CREATE TABLE IF NOT EXISTS orders (
    id      BIGINT PRIMARY KEY,
    user_id BIGINT REFERENCES shop.users (id),
    total   NUMERIC(10, 2)
);

CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE UNIQUE INDEX orders_user_idx ON orders (user_id);

CREATE OR REPLACE VIEW big_spenders AS
    SELECT u.email, sum(o.total) AS spent
    FROM shop.users u JOIN orders o ON o.user_id = u.id
    GROUP BY u.email;

-- Total of one user's orders.
CREATE FUNCTION user_total(uid BIGINT) RETURNS NUMERIC AS $$
    SELECT sum(total) FROM orders WHERE user_id = uid; -- not the end
$$ LANGUAGE sql;

INSERT INTO orders VALUES (1, 1, 9.99);

DELIMITER //
CREATE PROCEDURE touch_user(IN uid INT)
BEGIN
    UPDATE users SET created_at = now() WHERE id = uid;
END //
DELIMITER ;
