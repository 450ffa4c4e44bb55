const shown = (text) => text;
