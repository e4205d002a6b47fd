-- How a raw call uses its function: 0 a call, 1 a call in method syntax
-- (the values `method` held), 2 a function named as a value and not called
-- there (`map(f)`, `callback=f`), which may run it.
ALTER TABLE raw_call RENAME COLUMN method TO form;
