const canonical = (name) => name.toLowerCase().replace(/[-_.]+/g, '-');
