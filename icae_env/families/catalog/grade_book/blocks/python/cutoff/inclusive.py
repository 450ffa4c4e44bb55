def reaches(grade, cutoff):
    return grade >= cutoff
