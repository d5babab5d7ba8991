-- Users of the service.
CREATE TABLE IF NOT EXISTS public.users (
    id bigserial PRIMARY KEY,
    email text NOT NULL UNIQUE,
    created_at timestamptz DEFAULT now(),
    CONSTRAINT email_lower CHECK (email = lower(email))
);

CREATE TABLE orders (
    id bigserial PRIMARY KEY,
    user_id bigint REFERENCES users (id),
    total numeric(10, 2)
);

CREATE INDEX orders_user ON orders (user_id);

-- Orders with their user's email.
CREATE OR REPLACE VIEW order_emails AS
    SELECT o.id, u.email FROM orders o JOIN users u ON u.id = o.user_id;

CREATE FUNCTION order_total(p_user bigint) RETURNS numeric AS $$
    SELECT sum(total) FROM orders WHERE user_id = p_user;
$$ LANGUAGE sql;
