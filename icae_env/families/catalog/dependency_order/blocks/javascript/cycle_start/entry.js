const startAt = (loop) => loop;
