const shown = (text) => text.replace(/^[vV]/, '').split('+')[0];
